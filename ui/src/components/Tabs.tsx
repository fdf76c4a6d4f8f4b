import type { KeyboardEvent } from 'react';

export interface TabItem<K extends string> {
  id: K;
  label: string;
  /** The id of the tab panel this tab shows. */
  controls: string;
  count?: number;
}

/**
 * A WAI-ARIA tab list: one tab stop (the selected tab), the arrow keys,
 * Home and End move between tabs and select them.
 */
export function TabList<K extends string>({
  label,
  tabs,
  selected,
  onSelect,
  idPrefix,
  className,
  testId,
}: {
  label: string;
  tabs: TabItem<K>[];
  selected: K | null;
  onSelect: (id: K) => void;
  idPrefix: string;
  className?: string;
  testId?: string;
}) {
  function onKeyDown(e: KeyboardEvent<HTMLDivElement>) {
    const i = tabs.findIndex((x) => x.id === selected);
    let next: number | null = null;
    if (e.key === 'ArrowRight' || e.key === 'ArrowDown') next = (i + 1) % tabs.length;
    else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') next = (i - 1 + tabs.length) % tabs.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = tabs.length - 1;
    if (next === null) return;
    e.preventDefault();
    onSelect(tabs[next].id);
    document.getElementById(tabId(idPrefix, tabs[next].id))?.focus();
  }

  return (
    <div role="tablist" aria-label={label} className={`tab-list ${className ?? ''}`} onKeyDown={onKeyDown} data-testid={testId}>
      {tabs.map((x) => {
        const on = x.id === selected;
        return (
          <button
            key={x.id}
            type="button"
            role="tab"
            id={tabId(idPrefix, x.id)}
            className={`tab${on ? ' selected' : ''}`}
            aria-selected={on}
            aria-controls={x.controls}
            tabIndex={on || (selected === null && x === tabs[0]) ? 0 : -1}
            onClick={() => onSelect(x.id)}
            data-testid={`tab-${x.id}`}
          >
            {x.label}
            {x.count != null && <span className="tab-count"> ({x.count})</span>}
          </button>
        );
      })}
    </div>
  );
}

export function tabId(prefix: string, id: string): string {
  return `${prefix}-tab-${id}`;
}
