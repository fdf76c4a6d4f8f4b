//! Cutting a document body into retrievable chunks: by headings first, then
//! by paragraphs packed up to a bounded size, with a short overlap (the last
//! sentence of the previous chunk) when a section spans several chunks, so a
//! fact that straddles the cut is still found with its context.

/// Chunks aim for this many characters and never exceed the maximum.
pub const TARGET_CHARS: usize = 900;
/// No chunk is longer than this many characters.
pub const MAX_CHARS: usize = 1_400;
const OVERLAP_MAX_CHARS: usize = 240;

/// One retrievable piece of a document body.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// The heading trail, "Storage fees > Lot B".
    pub heading: String,
    /// Its paragraphs (with the overlap sentence first when it continues a section).
    pub text: String,
}

/// Sections of a Markdown body: (heading trail, paragraphs).
fn sections(body: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut trail: Vec<(usize, String)> = Vec::new();
    let mut paragraphs: Vec<String> = Vec::new();
    let mut para = String::new();
    let flush_para = |para: &mut String, paragraphs: &mut Vec<String>| {
        if !para.trim().is_empty() {
            paragraphs.push(para.trim().to_string());
        }
        para.clear();
    };
    let heading_of = |trail: &[(usize, String)]| {
        trail
            .iter()
            .map(|(_, h)| h.as_str())
            .collect::<Vec<_>>()
            .join(" > ")
    };
    for line in body.lines() {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            flush_para(&mut para, &mut paragraphs);
            if !paragraphs.is_empty() {
                out.push((heading_of(&trail), std::mem::take(&mut paragraphs)));
            }
            trail.retain(|(level, _)| *level < hashes);
            trail.push((hashes, line[hashes..].trim().to_string()));
            continue;
        }
        if line.trim().is_empty() {
            flush_para(&mut para, &mut paragraphs);
        } else {
            if !para.is_empty() {
                para.push('\n');
            }
            para.push_str(line);
        }
    }
    flush_para(&mut para, &mut paragraphs);
    if !paragraphs.is_empty() {
        out.push((heading_of(&trail), paragraphs));
    }
    out
}

/// Sentence ends: `. ! ? 。 ！ ？` followed by a space or the end. Good
/// enough for cutting; never used to change what the text says.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut iter = text.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        let end = match c {
            '。' | '！' | '？' => Some(i + c.len_utf8()),
            '.' | '!' | '?' | '\n' => match iter.peek() {
                None => Some(i + c.len_utf8()),
                Some((_, n)) if n.is_whitespace() => Some(i + c.len_utf8()),
                _ => None,
            },
            _ => None,
        };
        if let Some(end) = end {
            let s = text[start..end].trim();
            if !s.is_empty() {
                out.push(s);
            }
            start = end;
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// A paragraph longer than the maximum is cut at sentence ends, and a
/// sentence longer than that at a character boundary.
fn split_long(p: &str) -> Vec<String> {
    if p.len() <= MAX_CHARS {
        return vec![p.to_string()];
    }
    let mut out = Vec::new();
    let mut cur = String::new();
    for s in sentences(p) {
        let mut s = s;
        while s.len() > MAX_CHARS {
            let mut cut = MAX_CHARS;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            out.push(s[..cut].to_string());
            s = &s[cut..];
        }
        if !cur.is_empty() && cur.len() + 1 + s.len() > MAX_CHARS {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(s);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Chunks of a cleaned body, in order.
pub fn chunk(body: &str) -> Vec<Chunk> {
    let mut out = Vec::new();
    for (heading, paragraphs) in sections(body) {
        let pieces: Vec<String> = paragraphs.iter().flat_map(|p| split_long(p)).collect();
        let mut cur = String::new();
        for piece in pieces {
            if !cur.is_empty() && cur.len() + 2 + piece.len() > TARGET_CHARS {
                let overlap = sentences(&cur)
                    .last()
                    .filter(|s| s.len() <= OVERLAP_MAX_CHARS)
                    .map(|s| s.to_string());
                out.push(Chunk {
                    heading: heading.clone(),
                    text: std::mem::take(&mut cur),
                });
                if let Some(o) = overlap {
                    if o.len() + 2 + piece.len() <= MAX_CHARS {
                        cur = o;
                    }
                }
            }
            if !cur.is_empty() {
                cur.push_str("\n\n");
            }
            cur.push_str(&piece);
        }
        if !cur.trim().is_empty() {
            out.push(Chunk {
                heading: heading.clone(),
                text: cur,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_start_chunks_and_carry_their_trail() {
        let body = "# Fees\nIntro.\n\n## Lot B\nLot B costs more.\n\n### Nights\nFree at night.";
        let c = chunk(body);
        assert_eq!(c.len(), 3);
        assert_eq!(c[1].heading, "Fees > Lot B");
        assert_eq!(c[2].heading, "Fees > Lot B > Nights");
        assert_eq!(c[2].text, "Free at night.");
    }

    #[test]
    fn long_sections_are_bounded_and_overlap_by_a_sentence() {
        let para = "The regulator holds eleven inches water column under load. ".repeat(12);
        let body = format!("## LP\n{para}\n\n{para}\n\n{para}");
        let c = chunk(&body);
        assert!(c.len() >= 3, "{}", c.len());
        assert!(c.iter().all(|c| c.text.len() <= MAX_CHARS));
        assert!(c[1].text.starts_with("The regulator holds"));
        let one_line = "x".repeat(5_000);
        assert!(chunk(&one_line).iter().all(|c| c.text.len() <= MAX_CHARS));
    }
}
