//! Whitespace tokens of a Siconos text file, with positions for error messages and the checks
//! that keep the reader from allocating more than the input can fill.

use crate::NumericsError;

/// Largest size, count or index the reader accepts: Siconos stores them in C `int`s.
pub(crate) const MAX_INT: usize = i32::MAX as usize;

/// One whitespace-separated word of the input and the (1-based) line it is on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token<'a> {
    pub(crate) text: &'a str,
    pub(crate) line: usize,
}

/// `true` for the separators of C's `isspace`: space, tab, CR, LF, VT, FF.
fn is_separator(c: char) -> bool {
    c.is_ascii_whitespace() || c == '\u{b}'
}

/// The number of tokens [`tokenize`] gives, counted without allocating (at most
/// `(text.len() + 1) / 2`: a token and its separator take two bytes).
pub(crate) fn count_tokens(text: &str) -> usize {
    text.split(is_separator).filter(|w| !w.is_empty()).count()
}

/// Bytes of the token index of a text of `count` tokens.
pub(crate) fn token_index_bytes(count: usize) -> u64 {
    (count as u64).saturating_mul(std::mem::size_of::<Token<'_>>() as u64)
}

/// Splits `text` into whitespace-separated tokens (space, tab, CR, LF, VT, FF, as C's `isspace`);
/// `count` is [`count_tokens`] of `text`, the capacity allocated.
pub(crate) fn tokenize_counted(text: &str, count: usize) -> Vec<Token<'_>> {
    let mut tokens = Vec::with_capacity(count);
    for (i, line) in text.split('\n').enumerate() {
        for word in line.split(is_separator).filter(|w| !w.is_empty()) {
            tokens.push(Token { text: word, line: i + 1 });
        }
    }
    tokens
}

/// [`tokenize_counted`] without a budget (tests).
#[cfg(test)]
pub(crate) fn tokenize(text: &str) -> Vec<Token<'_>> {
    tokenize_counted(text, count_tokens(text))
}

/// What one read may still allocate: the limit ([`super::ReadOptions::max_bytes`]) and the bytes
/// charged so far. Every allocation whose size comes from the input is charged before it is made.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    limit: u64,
    used: u64,
}

impl Budget {
    /// A budget of `limit` bytes, nothing used.
    pub(crate) fn new(limit: u64) -> Self {
        Self { limit, used: 0 }
    }

    /// Charges `bytes` (`None`: the size overflowed) for `what`, or fails with
    /// [`NumericsError::ReadLimitExceeded`] naming `origin` when the total would exceed the limit.
    pub(crate) fn charge(
        &mut self,
        bytes: Option<u64>,
        what: &dyn Fn() -> String,
        origin: &str,
    ) -> Result<(), NumericsError> {
        match bytes.and_then(|b| self.used.checked_add(b)) {
            Some(total) if total <= self.limit => {
                self.used = total;
                Ok(())
            }
            _ => Err(NumericsError::ReadLimitExceeded {
                path: origin.to_string(),
                what: what(),
                declared: bytes.unwrap_or(u64::MAX),
                used: self.used,
                limit: self.limit,
            }),
        }
    }
}

/// Bytes of a dense `rows × cols` matrix of `f64` as faer stores it (each column padded to a
/// multiple of 8 rows, a 64-byte cache line); `None` on overflow.
pub(crate) fn dense_bytes(rows: usize, cols: usize) -> Option<u64> {
    let padded = (rows as u64).checked_next_multiple_of(8)?;
    padded.checked_mul(cols as u64)?.checked_mul(8)
}

/// `count` values of `size` bytes each; `None` on overflow.
pub(crate) fn array_bytes(count: usize, size: u64) -> Option<u64> {
    (count as u64).checked_mul(size)
}

/// A read position in a token list. Every read is checked; errors are
/// [`NumericsError::Parse`] naming the token index and line.
pub(crate) struct Cursor<'t, 'a> {
    tokens: &'t [Token<'a>],
    pos: usize,
    origin: &'t str,
    budget: Budget,
}

impl<'t, 'a> Cursor<'t, 'a> {
    /// A cursor at the first token; `origin` names the input in errors (a path or `<memory>`);
    /// what the reader allocates for the data is charged to `budget`.
    pub(crate) fn new(tokens: &'t [Token<'a>], origin: &'t str, budget: Budget) -> Self {
        Self { tokens, pos: 0, origin, budget }
    }

    /// The budget, with what this cursor's reads have charged.
    pub(crate) fn budget(&self) -> Budget {
        self.budget
    }

    /// Charges `bytes` for `what` (see [`Budget::charge`]); called after [`Cursor::ensure`] (so
    /// that a size beyond the input is a parse error) and before the allocation.
    pub(crate) fn charge(&mut self, bytes: Option<u64>, what: &dyn Fn() -> String) -> Result<(), NumericsError> {
        self.budget.charge(bytes, what, self.origin)
    }

    /// Index of the next token.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Number of tokens not read yet.
    pub(crate) fn remaining(&self) -> usize {
        self.tokens.len() - self.pos
    }

    /// Total number of tokens of the input.
    pub(crate) fn total(&self) -> usize {
        self.tokens.len()
    }

    /// The line of token `index` (0 past the end).
    pub(crate) fn line_of(&self, index: usize) -> usize {
        self.tokens.get(index).map_or(0, |t| t.line)
    }

    /// The next token, not consumed.
    pub(crate) fn peek(&self) -> Option<Token<'a>> {
        self.tokens.get(self.pos).copied()
    }

    /// A parse error at the current position.
    pub(crate) fn error(&self, reason: impl std::fmt::Display) -> NumericsError {
        self.error_at(self.pos, reason)
    }

    /// A parse error at token `index`.
    pub(crate) fn error_at(&self, index: usize, reason: impl std::fmt::Display) -> NumericsError {
        let place = match self.tokens.get(index) {
            Some(t) => format!("token {} (line {}, `{}`)", index + 1, t.line, shorten(t.text)),
            None => match self.tokens.last() {
                Some(t) => format!("end of input (after line {})", t.line),
                None => "end of input (empty input)".to_string(),
            },
        };
        NumericsError::Parse { path: self.origin.to_string(), reason: format!("at {place}: {reason}") }
    }

    /// Consumes the next token.
    pub(crate) fn next(&mut self, what: &str) -> Result<Token<'a>, NumericsError> {
        match self.tokens.get(self.pos) {
            Some(&t) => {
                self.pos += 1;
                Ok(t)
            }
            None => Err(self.error(format_args!("unexpected end of input, expected {what}"))),
        }
    }

    /// Consumes the next token, which must be `word`.
    pub(crate) fn expect(&mut self, word: &str) -> Result<(), NumericsError> {
        let t = self.next(word)?;
        if t.text == word { Ok(()) } else { Err(self.error_at(self.pos - 1, format_args!("expected `{word}`"))) }
    }

    /// Consumes a signed integer (optional sign, then decimal digits only: `3.5` or `1e3` are
    /// rejected where an integer is expected).
    pub(crate) fn integer(&mut self, what: &str) -> Result<i64, NumericsError> {
        let t = self.next(what)?;
        parse_integer(t.text).ok_or_else(|| self.error_at(self.pos - 1, format_args!("expected an integer for {what}")))
    }

    /// Consumes a non-negative integer at most `max` (a size, a count or an index).
    pub(crate) fn count(&mut self, what: &str, max: usize) -> Result<usize, NumericsError> {
        let v = self.integer(what)?;
        match usize::try_from(v) {
            Ok(u) if u <= max => Ok(u),
            Ok(u) => {
                Err(self.error_at(self.pos - 1, format_args!("{what} = {u} exceeds the admissible maximum {max}")))
            }
            Err(_) => Err(self.error_at(self.pos - 1, format_args!("{what} = {v} is negative"))),
        }
    }

    /// Consumes a floating-point number (C `strtod` syntax without hexadecimal forms; `nan` and
    /// `inf` are accepted here and rejected by the problems' validation).
    pub(crate) fn real(&mut self, what: &str) -> Result<f64, NumericsError> {
        let t = self.next(what)?;
        t.text.parse::<f64>().map_err(|_| self.error_at(self.pos - 1, format_args!("expected a number for {what}")))
    }

    /// Fails unless `needed` tokens remain; called before allocating for `needed` values.
    pub(crate) fn ensure(&self, needed: Option<usize>, what: &str) -> Result<(), NumericsError> {
        match needed {
            Some(k) if k <= self.remaining() => Ok(()),
            Some(k) => {
                Err(self.error(format_args!("{what} needs {k} more tokens but only {} remain", self.remaining())))
            }
            None => Err(self.error(format_args!("{what}: declared size overflows"))),
        }
    }

    /// Consumes `n` numbers, after checking that `n` tokens remain.
    pub(crate) fn reals(&mut self, n: usize, what: &str) -> Result<Vec<f64>, NumericsError> {
        self.ensure(Some(n), what)?;
        self.charge(array_bytes(n, 8), &|| format!("{what} ({n} numbers)"))?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(self.real(what)?);
        }
        Ok(v)
    }

    /// Consumes `n` counts at most `max`, after checking that `n` tokens remain.
    pub(crate) fn counts(&mut self, n: usize, max: usize, what: &str) -> Result<Vec<usize>, NumericsError> {
        self.ensure(Some(n), what)?;
        self.charge(array_bytes(n, 8), &|| format!("{what} ({n} integers)"))?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(self.count(what, max)?);
        }
        Ok(v)
    }

    /// Skips every remaining token of the line of token `index` and of the `extra` lines after it;
    /// returns the line of the next token (if any).
    pub(crate) fn skip_lines_after(&mut self, index: usize, extra: usize) -> Option<usize> {
        let last_line = self.tokens.get(index).map(|t| t.line + extra)?;
        while self.peek().is_some_and(|t| t.line <= last_line) {
            self.pos += 1;
        }
        self.peek().map(|t| t.line)
    }

    /// Skips the rest of the current token's line (the line of the token just read).
    pub(crate) fn skip_rest_of_line(&mut self) {
        if self.pos > 0 {
            self.skip_lines_after(self.pos - 1, 0);
        }
    }
}

/// `[+-]?[0-9]+` as an `i64`.
fn parse_integer(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.strip_prefix('+').unwrap_or(s).parse::<i64>().ok()
}

/// A token quoted in an error message, cut to 40 characters.
fn shorten(s: &str) -> String {
    if s.chars().count() <= 40 { s.to_string() } else { format!("{}…", s.chars().take(40).collect::<String>()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_carry_their_lines() {
        let t = tokenize("3\r\n 0\t3\n\n  -1.5e+00 x\u{b}y");
        let words: Vec<_> = t.iter().map(|t| (t.text, t.line)).collect();
        assert_eq!(words, vec![("3", 1), ("0", 2), ("3", 2), ("-1.5e+00", 4), ("x", 4), ("y", 4)]);
    }

    #[test]
    fn integers_are_strict() {
        assert_eq!(parse_integer("+12"), Some(12));
        assert_eq!(parse_integer("-3"), Some(-3));
        for bad in ["3.5", "1e3", "", "+", "0x10", "12a", "99999999999999999999"] {
            assert_eq!(parse_integer(bad), None, "{bad}");
        }
    }

    #[test]
    fn counts_are_bounded_and_errors_are_positioned() {
        let tokens = tokenize("3\n-1 99999999999 3.5");
        let mut c = Cursor::new(&tokens, "<memory>", Budget::new(u64::MAX));
        assert_eq!(c.count("n", MAX_INT).expect("3 is a count"), 3);
        let e = c.count("n", MAX_INT).expect_err("negative");
        assert!(e.to_string().contains("token 2 (line 2"), "{e}");
        assert!(c.count("n", MAX_INT).is_err());
        assert!(matches!(c.count("n", MAX_INT), Err(NumericsError::Parse { .. })));
        assert!(c.next("more").is_err());
        assert!(c.reals(1, "q").is_err());
    }

    #[test]
    fn ensure_refuses_more_than_what_remains() {
        let tokens = tokenize("1 2 3");
        let c = Cursor::new(&tokens, "<memory>", Budget::new(u64::MAX));
        assert!(c.ensure(Some(3), "q").is_ok());
        assert!(c.ensure(Some(4), "q").is_err());
        assert!(c.ensure(None, "q").is_err());
    }

    #[test]
    fn the_budget_refuses_what_exceeds_the_limit_and_names_it() {
        let tokens = tokenize("1 2 3 4");
        let mut c = Cursor::new(&tokens, "f.dat", Budget::new(24));
        assert!(c.reals(2, "q").is_ok());
        let e = c.reals(2, "mu").expect_err("16 + 16 > 24");
        assert!(
            matches!(e, NumericsError::ReadLimitExceeded { ref path, declared: 16, used: 16, limit: 24, .. } if path == "f.dat"),
            "{e:?}"
        );
        assert!(Budget::new(10).charge(None, &|| "x".into(), "f").is_err());
        assert_eq!(dense_bytes(1, 3), Some(192));
        assert_eq!(dense_bytes(usize::MAX, 2), None);
        assert_eq!(token_index_bytes(2), 2 * std::mem::size_of::<Token<'_>>() as u64);
        assert_eq!(count_tokens(" a\u{b}b\n\nc "), 3);
    }
}
