//! Character vocabularies, a seeded synthetic corpus and BERT-style masking.

use crate::error::{Error, Result};
use rand::{Rng, RngExt};

/// A character vocabulary: the sorted distinct characters of a text, plus a
/// `[MASK]` token with the last id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vocab {
    chars: Vec<char>,
}

impl Vocab {
    /// The vocabulary of `text`. O(|text|·log).
    ///
    /// # Errors
    /// [`Error::Empty`] for an empty text.
    pub fn from_text(text: &str) -> Result<Self> {
        let mut chars: Vec<char> = text.chars().collect();
        chars.sort_unstable();
        chars.dedup();
        if chars.is_empty() {
            return Err(Error::Empty("corpus"));
        }
        Ok(Vocab { chars })
    }

    /// Ids including `[MASK]`.
    pub fn len(&self) -> usize {
        self.chars.len() + 1
    }

    /// Never true (a vocabulary holds at least one character and `[MASK]`).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The `[MASK]` id.
    pub fn mask_id(&self) -> u32 {
        self.chars.len() as u32
    }

    /// The ids of `text`. O(|text|·log |V|).
    ///
    /// # Errors
    /// [`Error::UnknownChar`] for a character outside the vocabulary.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        text.chars()
            .map(|c| {
                self.chars
                    .binary_search(&c)
                    .map(|i| i as u32)
                    .map_err(|_| Error::UnknownChar(c))
            })
            .collect()
    }

    /// The text of `ids` (`[MASK]` shown as `_`).
    ///
    /// # Errors
    /// [`Error::TokenOutOfRange`].
    pub fn decode(&self, ids: &[u32]) -> Result<String> {
        ids.iter()
            .map(|&i| match self.chars.get(i as usize) {
                Some(&c) => Ok(c),
                None if i == self.mask_id() => Ok('_'),
                None => Err(Error::TokenOutOfRange {
                    id: i,
                    vocab: self.len(),
                }),
            })
            .collect()
    }
}

/// A seeded synthetic English-like corpus of about `n_chars` characters
/// (generated in code; no data file): a lexicon of `words` pronounceable
/// words built from consonant–vowel syllables, drawn with Zipf frequencies
/// `∝ 1/rank`, where each word prefers four successors (drawn with
/// probability 0.6), sentences of 4–12 words ending in `.` and line breaks.
/// The text thus has spelling (within-word), collocation (word-pair) and
/// punctuation structure for a character model to learn. O(n_chars).
///
/// # Errors
/// [`Error::InvalidParameter`] for `n_chars = 0` or `words < 2`.
pub fn synthetic_corpus<R: Rng + ?Sized>(
    n_chars: usize,
    words: usize,
    rng: &mut R,
) -> Result<String> {
    if n_chars == 0 || words < 2 {
        return Err(Error::InvalidParameter {
            name: "corpus size",
            value: format!("{n_chars} characters, {words} words"),
            expected: "at least 1 character and 2 words",
        });
    }
    mlcore::check::alloc_len(&[n_chars], 4, "corpus")?;
    const CONS: &[u8] = b"bcdfghklmnprstvw";
    const VOW: &[u8] = b"aeiou";
    let lexicon: Vec<String> = (0..words)
        .map(|_| {
            let syllables = 1 + rng.random_range(0..3usize);
            let mut w = String::new();
            for _ in 0..syllables {
                w.push(CONS[rng.random_range(0..CONS.len())] as char);
                w.push(VOW[rng.random_range(0..VOW.len())] as char);
                if rng.random_bool(0.3) {
                    w.push(CONS[rng.random_range(0..CONS.len())] as char);
                }
            }
            w
        })
        .collect();
    let cum: Vec<f64> = (1..=words)
        .scan(0.0, |s, r| {
            *s += 1.0 / r as f64;
            Some(*s)
        })
        .collect();
    let total = cum[words - 1];
    let zipf = |rng: &mut R| {
        let u = rng.random::<f64>() * total;
        cum.partition_point(|&c| c < u).min(words - 1)
    };
    let next: Vec<[usize; 4]> = (0..words)
        .map(|_| [zipf(rng), zipf(rng), zipf(rng), zipf(rng)])
        .collect();
    let mut out = String::with_capacity(n_chars + 64);
    let mut prev = zipf(rng);
    while out.len() < n_chars {
        let len = 4 + rng.random_range(0..9usize);
        for i in 0..len {
            let w = if rng.random_bool(0.6) {
                next[prev][rng.random_range(0..4usize)]
            } else {
                zipf(rng)
            };
            if i > 0 {
                out.push(' ');
            }
            out.push_str(&lexicon[w]);
            prev = w;
        }
        out.push('.');
        out.push(if rng.random_bool(0.2) { '\n' } else { ' ' });
    }
    out.truncate(n_chars);
    Ok(out)
}

/// BERT-style masking of `ids`: each position is selected with probability
/// `p` (0.15 in BERT); a selected position becomes `[MASK]` with
/// probability 0.8, a uniformly random character with 0.1, and stays with
/// 0.1. Returns the corrupted ids and the selected positions (the targets).
/// O(|ids|).
///
/// # Errors
/// [`Error::InvalidParameter`] for `p ∉ (0, 1)`; [`Error::TokenOutOfRange`].
pub fn mask_tokens<R: Rng + ?Sized>(
    ids: &[u32],
    p: f64,
    vocab: &Vocab,
    rng: &mut R,
) -> Result<(Vec<u32>, Vec<bool>)> {
    check_mask_prob(p)?;
    let chars = vocab.mask_id();
    if let Some(&id) = ids.iter().find(|&&i| i >= chars) {
        return Err(Error::TokenOutOfRange {
            id,
            vocab: vocab.len(),
        });
    }
    let mut out = ids.to_vec();
    let mut selected = vec![false; ids.len()];
    for (o, s) in out.iter_mut().zip(selected.iter_mut()) {
        if rng.random_bool(p) {
            *s = true;
            let r: f64 = rng.random();
            if r < 0.8 {
                *o = chars;
            } else if r < 0.9 {
                *o = rng.random_range(0..chars);
            }
        }
    }
    Ok((out, selected))
}

/// Checks a masking probability `p ∈ (0, 1)`.
pub(crate) fn check_mask_prob(p: f64) -> Result<()> {
    if !(p > 0.0 && p < 1.0) {
        return Err(Error::InvalidParameter {
            name: "masking probability",
            value: p.to_string(),
            expected: "a value in (0, 1)",
        });
    }
    Ok(())
}
