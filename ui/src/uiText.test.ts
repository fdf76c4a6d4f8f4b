// A UI string written straight into a component never reaches es.ts or ru.ts:
// every word a component shows must come from the message catalogs (t()).
// This reads each component with the TypeScript parser and fails on JSX text
// or a text attribute (aria-label, title, placeholder, alt) holding words.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const COMPONENTS = resolve(__dirname, 'components');
const TEXT_ATTRIBUTES = new Set(['aria-label', 'title', 'placeholder', 'alt', 'aria-description', 'aria-roledescription']);
/** Two Latin or Cyrillic letters in a row: a word, not a symbol (×, ✓, ▶) or punctuation. */
const WORDS = /[A-Za-zА-Яа-яЁё]{2,}/;
/** Brand and unit text that is the same in every language. */
const SAME_IN_EVERY_LANGUAGE = new Set([
  'RV',
  'RV Service Desk',
  'SHA-256',
  // Units and example codes in placeholders: what is typed, in any language.
  'mi',
  'km',
  'SH',
  'LOT-A',
  'ORD-022',
  'SEA-STORAGE',
  'SEA',
  'STORAGE, LOT-B',
  'America/Los_Angeles',
  'https://portal.example.com',
]);

/** A string that is itself a child of a JSX element ({'…'}, {`…`}, {a ? '…' : '…'}), not an argument of a call. */
function isShownInJsx(n: ts.Node): boolean {
  let at: ts.Node = n;
  for (;;) {
    const p = at.parent;
    const isResult =
      ts.isParenthesizedExpression(p) ||
      (ts.isConditionalExpression(p) && p.condition !== at) ||
      (ts.isBinaryExpression(p) &&
        p.right === at &&
        [ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken].includes(p.operatorToken.kind));
    if (!isResult) break;
    at = p;
  }
  const p = at.parent;
  return ts.isJsxExpression(p) && (ts.isJsxElement(p.parent) || ts.isJsxFragment(p.parent));
}

function hardCodedText(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const where = (n: ts.Node) => `${file.split('/').pop()}:${source.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
  const visit = (n: ts.Node) => {
    if (ts.isJsxText(n)) {
      const text = n.getText().trim();
      if (WORDS.test(text) && !SAME_IN_EVERY_LANGUAGE.has(text)) found.push(`${where(n)} text "${text}"`);
    } else if (
      (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateExpression(n)) &&
      isShownInJsx(n)
    ) {
      const text = ts.isTemplateExpression(n) ? [n.head.text, ...n.templateSpans.map((x) => x.literal.text)].join(' ') : n.text;
      if (WORDS.test(text) && !SAME_IN_EVERY_LANGUAGE.has(text.trim())) found.push(`${where(n)} literal "${text}"`);
    } else if (ts.isJsxAttribute(n) && TEXT_ATTRIBUTES.has(n.name.getText()) && n.initializer && ts.isStringLiteral(n.initializer)) {
      const text = n.initializer.text;
      if (WORDS.test(text) && !SAME_IN_EVERY_LANGUAGE.has(text)) found.push(`${where(n)} ${n.name.getText()}="${text}"`);
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return found;
}

describe('UI text', () => {
  it('every word a component shows comes from the message catalogs', () => {
    const files = readdirSync(COMPONENTS)
      .filter((f) => f.endsWith('.tsx') && !f.endsWith('.test.tsx'))
      .map((f) => join(COMPONENTS, f));
    expect(files.length).toBeGreaterThan(20);
    expect(files.flatMap(hardCodedText)).toEqual([]);
  });
});
