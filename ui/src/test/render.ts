// Minimal React rendering for jsdom tests (no extra libraries).
import { act, type ReactElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export interface Rendered {
  container: HTMLElement;
  root: Root;
  unmount: () => void;
}

export function render(ui: ReactElement): Rendered {
  const container = document.createElement('div');
  document.body.appendChild(container);
  const root = createRoot(container);
  act(() => root.render(ui));
  return {
    container,
    root,
    unmount: () => {
      act(() => root.unmount());
      container.remove();
    },
  };
}

export const byTestId = (root: ParentNode, id: string) => root.querySelector<HTMLElement>(`[data-testid="${id}"]`);
export const allByTestId = (root: ParentNode, id: string) =>
  Array.from(root.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`));

/** Polls `check` (inside act, so React flushes) until it returns truthy. */
export async function waitFor<T>(check: () => T | null | undefined | false, timeoutMs = 3000): Promise<T> {
  const started = Date.now();
  for (;;) {
    let value: T | null | undefined | false = undefined;
    let error: unknown;
    try {
      value = check();
    } catch (e) {
      error = e;
    }
    if (value) return value;
    if (Date.now() - started > timeoutMs) {
      throw error instanceof Error ? error : new Error('waitFor timed out');
    }
    await act(async () => {
      await new Promise((r) => setTimeout(r, 20));
    });
  }
}

/** Sets an input's value the way React notices (the native setter + an input event). */
export function typeInto(el: HTMLElement, value: string): void {
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
  const setter = Object.getOwnPropertyDescriptor(proto, 'value')!.set!;
  act(() => {
    setter.call(el, value);
    el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
  });
}

export function click(el: Element | null): void {
  if (!el) throw new Error('click: element not found');
  act(() => {
    (el as HTMLElement).click();
  });
}
