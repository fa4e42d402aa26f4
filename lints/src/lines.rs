//! Line splitting with a vectorised newline search (`memchr`): `str::lines` and
//! `str::split_inclusive('\n')` search with core's portable `memchr`, a byte loop that was a
//! tenth of the tokens and cite gates' instructions on `driver/` (issue 16). Same lines, same
//! order, same slices.

/// The lines of `text` exactly as `str::lines` gives them: split at `\n`, a `\r` right before
/// it dropped, no empty last line after a final newline.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = &str> {
    inclusive(text).map(|piece| match piece.strip_suffix('\n') {
        Some(body) => body.strip_suffix('\r').unwrap_or(body),
        None => piece,
    })
}

/// The pieces of `text` exactly as `str::split_inclusive('\n')` gives them: each line with its
/// `\n`, the last one without when the text does not end in a newline.
pub(crate) fn inclusive(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        // `\n` is ASCII, so the cut after it is a char boundary.
        let end = memchr::memchr(b'\n', rest.as_bytes()).map_or(rest.len(), |i| i + 1);
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(piece)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every string of up to six characters over `a`, `\r`, `\n` and a two-byte character
    /// splits as the standard library splits it.
    #[test]
    fn splits_like_the_standard_library() {
        let alphabet = ['a', '\r', '\n', 'é'];
        let mut texts = vec![String::new()];
        let mut all = vec![String::new()];
        for _ in 0..6 {
            texts = texts
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            all.extend(texts.iter().cloned());
        }
        for t in &all {
            assert_eq!(
                lines(t).collect::<Vec<_>>(),
                t.lines().collect::<Vec<_>>(),
                "{t:?}"
            );
            assert_eq!(
                inclusive(t).collect::<Vec<_>>(),
                t.split_inclusive('\n').collect::<Vec<_>>(),
                "{t:?}"
            );
        }
    }
}
