import type { PhotoCondition } from '../api';
import { t, type MessageKey } from '../i18n';

/** The condition tags in the order a technician reads them, mildest first. */
export const CONDITIONS: { value: PhotoCondition; label: MessageKey }[] = [
  { value: 'ok', label: 'condition.ok' },
  { value: 'attention', label: 'condition.attention' },
  { value: 'urgent', label: 'condition.urgent' },
];

/** A photo's condition as a coloured tag; the word is there too, so colour is never the only sign. */
export function ConditionTag({ condition }: { condition: PhotoCondition }) {
  const label = CONDITIONS.find((c) => c.value === condition)?.label ?? 'condition.ok';
  return (
    <span className={`condition-tag condition-${condition}`} data-testid="condition-tag" data-condition={condition}>
      {t(label)}
    </span>
  );
}
