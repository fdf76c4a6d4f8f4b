//! The front-matter block of a knowledge document: a strict, documented
//! subset of YAML (see knowledge/README.md), parsed by hand so that every
//! error, including a bad value found later by validation, names its line.
//!
//! Supported: `key: value` scalars (plain, 'single' or "double" quoted),
//! `null` / `~` / empty, inline lists `[A, B]`, block lists of `- item`
//! lines under a key, and `#` comments. Anything else (nested maps,
//! multi-line strings, anchors) is refused, not guessed at.

/// A value with the 1-based line it was written on.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Scalar(String),
    List(Vec<String>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub key: String,
    pub value: Value,
    pub line: usize,
}

/// A syntax error at a line.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub line: usize,
    pub field: Option<String>,
    pub message: String,
}

/// Splits `---\n…\n---\n body` into (fields, body, line where the body starts).
pub fn split(text: &str) -> Result<(Vec<Field>, &str, usize), SyntaxError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Err(SyntaxError {
            line: 1,
            field: None,
            message: "a knowledge document starts with a `---` front-matter line".into(),
        });
    }
    let mut offset = first.len();
    let mut block = Vec::new();
    let mut closed = false;
    for (i, line) in lines.enumerate() {
        offset += line.len();
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        block.push((i + 2, line.trim_end_matches(['\n', '\r'])));
    }
    if !closed {
        return Err(SyntaxError {
            line: block.last().map(|(n, _)| *n).unwrap_or(1),
            field: None,
            message: "the front matter is never closed by a `---` line".into(),
        });
    }
    let body_line = block.last().map(|(n, _)| n + 2).unwrap_or(3);
    let fields = parse_block(&block)?;
    Ok((fields, &text[offset..], body_line))
}

fn strip_comment(s: &str) -> &str {
    // A `#` starts a comment outside quotes, at the start or after a space.
    let mut quote = None;
    let bytes = s.as_bytes();
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if i == 0 || bytes[i - 1] == b' ' || bytes[i - 1] == b'\t' => {
                return &s[..i];
            }
            _ => {}
        }
    }
    s
}

fn parse_block(block: &[(usize, &str)]) -> Result<Vec<Field>, SyntaxError> {
    let mut fields: Vec<Field> = Vec::new();
    let mut open_list: Option<usize> = None; // index in fields of a key awaiting `- item` lines
    for &(line, raw) in block {
        let content = strip_comment(raw);
        if content.trim().is_empty() {
            continue;
        }
        let indented = content.starts_with([' ', '\t']);
        let trimmed = content.trim();
        if let Some(item) =
            trimmed
                .strip_prefix("- ")
                .or(if trimmed == "-" { Some("") } else { None })
        {
            let Some(idx) = open_list else {
                return Err(SyntaxError {
                    line,
                    field: None,
                    message: "a `- item` line belongs under a `key:` line".into(),
                });
            };
            let key = fields[idx].key.clone();
            let item = scalar(item.trim(), line, &key)?;
            let Some(item) = item else {
                return Err(SyntaxError {
                    line,
                    field: Some(key),
                    message: "an empty list item".into(),
                });
            };
            match &mut fields[idx].value {
                Value::List(items) => items.push(item),
                v => *v = Value::List(vec![item]),
            }
            continue;
        }
        if indented {
            return Err(SyntaxError {
                line,
                field: None,
                message: "indented line is not a `- item`; nested maps and multi-line values are not supported".into(),
            });
        }
        let Some((key, rest)) = trimmed.split_once(':') else {
            return Err(SyntaxError {
                line,
                field: None,
                message: format!("expected `key: value`, found {trimmed:?}"),
            });
        };
        let key = key.trim().to_string();
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(SyntaxError {
                line,
                field: None,
                message: format!("{key:?} is not a field name"),
            });
        }
        if fields.iter().any(|f| f.key == key) {
            return Err(SyntaxError {
                line,
                field: Some(key),
                message: "the field is given twice".into(),
            });
        }
        let rest = rest.trim();
        let value = if let Some(inner) = rest.strip_prefix('[') {
            let Some(inner) = inner.strip_suffix(']') else {
                return Err(SyntaxError {
                    line,
                    field: Some(key),
                    message:
                        "an inline list opened with `[` is not closed with `]` on the same line"
                            .into(),
                });
            };
            let mut items = Vec::new();
            for part in split_inline(inner) {
                if let Some(v) = scalar(part.trim(), line, &key)? {
                    items.push(v);
                }
            }
            Value::List(items)
        } else {
            match scalar(rest, line, &key)? {
                Some(v) => Value::Scalar(v),
                None => Value::Null,
            }
        };
        open_list = matches!(value, Value::Null).then_some(fields.len());
        fields.push(Field { key, value, line });
    }
    Ok(fields)
}

fn split_inline(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut quote = None;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, ',') => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() || !parts.is_empty() {
        parts.push(&s[start..]);
    }
    parts
}

/// A scalar: `None` for null. Quotes are removed; `''` inside single quotes
/// and `\"` / `\\` inside double quotes are the only escapes.
fn scalar(s: &str, line: usize, key: &str) -> Result<Option<String>, SyntaxError> {
    let err = |message: &str| SyntaxError {
        line,
        field: Some(key.to_string()),
        message: message.to_string(),
    };
    if s.is_empty() || s == "null" || s == "~" {
        return Ok(None);
    }
    if let Some(inner) = s.strip_prefix('"') {
        let inner = inner
            .strip_suffix('"')
            .ok_or_else(|| err("a double-quoted value is not closed on its line"))?;
        return Ok(Some(inner.replace("\\\"", "\"").replace("\\\\", "\\")));
    }
    if let Some(inner) = s.strip_prefix('\'') {
        let inner = inner
            .strip_suffix('\'')
            .ok_or_else(|| err("a single-quoted value is not closed on its line"))?;
        return Ok(Some(inner.replace("''", "'")));
    }
    if s.starts_with(['{', '&', '*', '|', '>', '!']) {
        return Err(err(
            "maps, anchors, tags and block strings are not supported in front matter",
        ));
    }
    Ok(Some(s.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_documented_subset_with_lines() {
        let doc = "---\nsource_id: a-b # trailing comment\nlot_codes: [A, 'B']\nclarifying_questions:\n  - Which lot?\n  - \"On what date?\"\neffective_to: null\n---\n# Title\nBody\n";
        let (fields, body, body_line) = split(doc).unwrap();
        assert_eq!(fields[0].value, Value::Scalar("a-b".into()));
        assert_eq!(fields[1].value, Value::List(vec!["A".into(), "B".into()]));
        assert_eq!(fields[2].line, 4);
        assert_eq!(
            fields[2].value,
            Value::List(vec!["Which lot?".into(), "On what date?".into()])
        );
        assert_eq!(fields[3].value, Value::Null);
        assert_eq!(body, "# Title\nBody\n");
        assert_eq!(body_line, 9);
    }

    #[test]
    fn refuses_what_it_does_not_support_with_the_line() {
        let e = split("---\ntitle: x\nscope:\n  city: SEA\n---\nb").unwrap_err();
        assert_eq!(e.line, 4);
        let e = split("---\ntitle: \"open\n---\nb").unwrap_err();
        assert_eq!((e.line, e.field.as_deref()), (2, Some("title")));
        let e = split("no front matter").unwrap_err();
        assert_eq!(e.line, 1);
        let e = split("---\ntitle: x\n").unwrap_err();
        assert!(e.message.contains("never closed"));
    }
}
