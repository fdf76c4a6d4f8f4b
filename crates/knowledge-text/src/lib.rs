//! The pure text side of the knowledge store, with no I/O and nothing of the
//! store: both the index and queries normalize through [`text`], so their
//! forms always agree.
//!
//! - [`text`]: the index form (Snowball stems, folded accents, CJK bigrams),
//!   query terms and key words.
//! - [`chunk`]: bounded chunks by headings and paragraphs.
//! - [`crosslang`]: Spanish and Russian query words looked up under the
//!   English terms of the shop's documents (a term lexicon, `crosslang.lex`).

pub mod chunk;
pub mod crosslang;
pub mod text;
