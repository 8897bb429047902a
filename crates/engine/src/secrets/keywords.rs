//! The keyword pass: every occurrence of every rule keyword in a text, ASCII case-insensitive
//! and overlapping: exactly what `aho_corasick` reports with `ascii_case_insensitive(true)` and
//! `MatchKind::Standard` (a randomised test compares the two).
//!
//! The automaton is a dense Aho-Corasick DFA built here rather than `aho_corasick`'s, for its
//! size. `aho_corasick`'s DFA gives each state one `u32` per byte class, and its byte classes
//! are ranges of bytes, so `a` and `A` are distinct classes: the ~250 rule keywords need 128
//! columns (~650 KB), and a step on ordinary text often waits on a load from L2. Here a class
//! is one keyword byte together with its other ASCII case, every byte in no keyword is class 0,
//! and states are `u16` offsets: 45 class columns plus one, ~118 KB, and the rows that ordinary
//! text visits stay in L1. A long text is walked in [`LANES`] interleaved parts, so that the
//! parts' table loads overlap (each step depends on the previous one's load).
//!
//! Nothing here keeps or prints the text.

/// One keyword occurrence: (keyword index, start, end).
pub(super) type Hit = (usize, usize, usize);

/// Texts at least this long are walked in [`LANES`] interleaved parts.
pub(super) const LANED_TEXT: usize = 1024;
/// How many interleaved walks search a long text: on 64 KiB of source, three and four were
/// equal and best in this shared VM's fast phases, two and three in its slow ones (when memory
/// loads take twice as long); five and six spill registers.
const LANES: usize = 3;
/// Size of the transition table: any `u16` state plus any `u8` class is inside it, so a step
/// needs no bounds check.
const TABLE: usize = (1 << 16) + (1 << 8);

/// The rule keywords and their automaton.
#[derive(Debug, Default)]
pub(super) struct Keywords {
    /// `None` when it could not be built (see [`Dfa::new`]).
    dfa: Option<Dfa>,
    /// The keywords (lower case); a hit names one by its index.
    #[cfg(test)]
    words: Vec<String>,
}

impl Keywords {
    /// The automaton over `words` (lower case); a hit names a keyword by its index in `words`.
    pub(super) fn new(words: Vec<String>) -> Keywords {
        Keywords {
            dfa: Dfa::new(&words),
            #[cfg(test)]
            words,
        }
    }

    /// The keywords, in hit index order.
    #[cfg(test)]
    pub(super) fn words(&self) -> &[String] {
        &self.words
    }

    /// Every keyword occurrence in `hay` (overlapping), in order of end; `None` when there is no
    /// automaton (then every rule must run).
    pub(super) fn hits(&self, hay: &[u8]) -> Option<Vec<Hit>> {
        let dfa = self.dfa.as_ref()?;
        let mut hits = Vec::new();
        if hay.len() < LANED_TEXT {
            dfa.walk(hay, dfa.start, 0, 0, &mut hits);
        } else {
            dfa.walk_lanes(hay, &mut hits);
        }
        Some(hits)
    }
}

/// One part of a long text walked by [`Dfa::walk_lanes`].
struct Lane {
    /// Where the part starts; hits that end at or before it belong to the previous part.
    begin: usize,
    /// Where its walk starts.
    from: usize,
    /// Where it ends.
    end: usize,
    hits: Vec<Hit>,
}

/// A dense Aho-Corasick DFA over byte classes. A state is the offset of its row in `trans`;
/// each row has a class column per class, then one column that holds, for a match state, its
/// slot in `spans`.
#[derive(Debug)]
struct Dfa {
    /// Byte → class: a keyword byte and its other ASCII case share one; bytes in no keyword
    /// are class 0, which always leads back to the start state.
    classes: [u8; 256],
    /// Columns per row: the classes and the match column.
    stride: usize,
    /// The rows, then zeros up to [`TABLE`].
    trans: Box<[u16; TABLE]>,
    /// The start state (the trie's root).
    start: u16,
    /// Match states are numbered first: every state below this one is a match state.
    match_limit: usize,
    /// For the match state in slot `m`: its keywords are `outputs[spans[m].0..spans[m].1]`,
    /// the longest first, as (keyword index, length).
    spans: Vec<(u32, u32)>,
    outputs: Vec<(usize, usize)>,
    /// Longest keyword, in bytes.
    longest: usize,
}

impl Dfa {
    /// The automaton over `words` (matched ASCII case-insensitively); `None` when a word is
    /// empty or the states do not fit `u16` offsets.
    fn new(words: &[String]) -> Option<Dfa> {
        if words.iter().any(String::is_empty) {
            return None;
        }
        let mut classes = [0u8; 256];
        let mut present = [false; 256];
        for byte in words.iter().flat_map(|w| w.bytes()) {
            *present.get_mut(usize::from(byte.to_ascii_lowercase()))? = true;
        }
        let mut columns = 1usize;
        for byte in (0..=u8::MAX).filter(|b| present.get(usize::from(*b)) == Some(&true)) {
            let class = u8::try_from(columns).ok()?;
            *classes.get_mut(usize::from(byte))? = class;
            *classes.get_mut(usize::from(byte.to_ascii_uppercase()))? = class;
            columns += 1;
        }
        let class_of = |byte: u8| usize::from(classes.get(usize::from(byte)).copied().unwrap_or(0));

        // The trie, node 0 the root; `next` is dense (node × class), `NONE` where no edge.
        const NONE: u32 = u32::MAX;
        let mut next: Vec<u32> = vec![NONE; columns];
        let mut own: Vec<Vec<u32>> = vec![Vec::new()];
        for (index, word) in words.iter().enumerate() {
            let mut node = 0usize;
            for byte in word.bytes() {
                let cell = next.get_mut(node * columns + class_of(byte))?;
                node = if *cell == NONE {
                    *cell = u32::try_from(own.len()).ok()?;
                    own.push(Vec::new());
                    next.resize(own.len() * columns, NONE);
                    own.len() - 1
                } else {
                    usize::try_from(*cell).ok()?
                };
            }
            own.get_mut(node)?.push(u32::try_from(index).ok()?);
        }
        let nodes = own.len();
        let stride = columns + 1;
        if nodes.checked_mul(stride)? > usize::from(u16::MAX) + 1 {
            return None;
        }

        // Breadth first, turning `next` into the DFA's transitions (a missing edge goes where
        // the failure state's goes) and completing each node's keywords with its failure
        // state's: a node's failure state is shallower, so it is complete by then.
        let mut fail = vec![0usize; nodes];
        let mut outputs = own;
        let mut queue = std::collections::VecDeque::from([0usize]);
        while let Some(node) = queue.pop_front() {
            let node_fail = fail.get(node).copied()?;
            for class in 0..columns {
                let via_fail = if node == 0 {
                    0
                } else {
                    usize::try_from(*next.get(node_fail * columns + class)?).ok()?
                };
                let cell = next.get_mut(node * columns + class)?;
                if *cell == NONE {
                    *cell = u32::try_from(via_fail).ok()?;
                    continue;
                }
                let child = usize::try_from(*cell).ok()?;
                *fail.get_mut(child)? = via_fail;
                let inherited = outputs.get(via_fail)?.clone();
                outputs.get_mut(child)?.extend(inherited);
                queue.push_back(child);
            }
        }

        // Match states first; a state's id is its row's offset.
        let mut order: Vec<usize> = (0..nodes).collect();
        order.sort_by_key(|&node| outputs.get(node).is_none_or(Vec::is_empty));
        let mut id = vec![0u16; nodes];
        for (row, &node) in order.iter().enumerate() {
            *id.get_mut(node)? = u16::try_from(row * stride).ok()?;
        }
        let mut trans: Vec<u16> = Vec::with_capacity(TABLE);
        let mut spans = Vec::new();
        let mut flat = Vec::new();
        for &node in &order {
            for &to in next.get(node * columns..(node + 1) * columns)? {
                trans.push(*id.get(usize::try_from(to).ok()?)?);
            }
            let out = outputs.get(node)?;
            trans.push(if out.is_empty() {
                0
            } else {
                u16::try_from(spans.len()).ok()?
            });
            if !out.is_empty() {
                let from = u32::try_from(flat.len()).ok()?;
                for &keyword in out {
                    let keyword = usize::try_from(keyword).ok()?;
                    flat.push((keyword, words.get(keyword)?.len()));
                }
                spans.push((from, u32::try_from(flat.len()).ok()?));
            }
        }
        trans.resize(TABLE, 0);
        Some(Dfa {
            classes,
            stride,
            trans: trans.into_boxed_slice().try_into().ok()?,
            start: *id.first()?,
            match_limit: spans.len() * stride,
            spans,
            outputs: flat,
            longest: words.iter().map(String::len).max().unwrap_or(0),
        })
    }

    /// The state after `sid` reads `byte`.
    #[inline(always)]
    fn step(&self, sid: usize, byte: u8) -> usize {
        let class = self.classes.get(usize::from(byte)).copied().unwrap_or(0);
        // `sid` is a `u16` and `TABLE` holds any `u16` + `u8`: the `None` arm is never taken
        // (and the check is compiled away).
        match self.trans.get(sid + usize::from(class)) {
            Some(&next) => usize::from(next),
            None => usize::from(self.start),
        }
    }

    /// Walks `hay`, which is the text from `offset` on, from state `sid`, adding the hits that
    /// end after `begin` to `out`.
    fn walk(&self, hay: &[u8], sid: u16, offset: usize, begin: usize, out: &mut Vec<Hit>) {
        let mut sid = usize::from(sid);
        for (i, &byte) in hay.iter().enumerate() {
            sid = self.step(sid, byte);
            if sid < self.match_limit && offset + i >= begin {
                self.report(sid, offset + i + 1, out);
            }
        }
    }

    /// [`Dfa::walk`] over the whole of a long `hay` in [`LANES`] interleaved parts. Part `k` is
    /// walked from `longest - 1` bytes before its start, so that a keyword across the start is
    /// whole in it, and keeps only the hits that end inside it. The parts step together over
    /// their common length, then each finishes alone.
    fn walk_lanes(&self, hay: &[u8], out: &mut Vec<Hit>) {
        let part = hay.len().div_ceil(LANES);
        let mut lanes: [Lane; LANES] = std::array::from_fn(|k| {
            let begin = (k * part).min(hay.len());
            Lane {
                begin,
                from: begin.saturating_sub(self.longest.saturating_sub(1)),
                end: ((k + 1) * part).min(hay.len()),
                hits: Vec::with_capacity((part / 64).min(4096)),
            }
        });
        let common = lanes.iter().map(|l| l.end - l.from).min().unwrap_or(0);
        let parts = std::array::from_fn(|k| {
            lanes
                .get(k)
                .and_then(|l| hay.get(l.from..l.from + common))
                .unwrap_or_default()
        });
        let mut sids = [self.start; LANES];
        let mut at = 0;
        while at < common {
            at = self.step_lanes(parts, &mut sids, at);
            for (lane, &sid) in lanes.iter_mut().zip(&sids) {
                if usize::from(sid) < self.match_limit && lane.from + at > lane.begin {
                    self.report(usize::from(sid), lane.from + at, &mut lane.hits);
                }
            }
        }
        for (mut lane, sid) in lanes.into_iter().zip(sids) {
            let rest = hay.get(lane.from + common..lane.end).unwrap_or_default();
            self.walk(rest, sid, lane.from + common, lane.begin, &mut lane.hits);
            out.append(&mut lane.hits);
        }
    }

    /// Steps the walks in states `sids` together over `parts` (of one length) from index `at`
    /// until a step leaves some walk in a match state, or to the end; returns the index after
    /// the last step. A loop of its own, without calls, so that the states and pointers stay in
    /// registers.
    #[inline(never)]
    fn step_lanes(&self, parts: [&[u8]; LANES], sids: &mut [u16; LANES], at: usize) -> usize {
        let [p0, p1, p2] = parts.map(|p| p.get(at..).unwrap_or_default());
        let [mut s0, mut s1, mut s2] = sids.map(usize::from);
        let limit = self.match_limit;
        let mut i = at;
        for ((&x0, &x1), &x2) in p0.iter().zip(p1).zip(p2) {
            s0 = self.step(s0, x0);
            s1 = self.step(s1, x1);
            s2 = self.step(s2, x2);
            i += 1;
            if s0 < limit || s1 < limit || s2 < limit {
                break;
            }
        }
        *sids = [s0, s1, s2].map(|s| u16::try_from(s).unwrap_or(0));
        i
    }

    /// Adds the keywords of match state `sid`, ending at `end`, to `out`.
    #[cold]
    fn report(&self, sid: usize, end: usize, out: &mut Vec<Hit>) {
        let slot = self
            .trans
            .get(sid + self.stride - 1)
            .map_or(0, |&m| usize::from(m));
        let (from, to) = self.spans.get(slot).copied().unwrap_or_default();
        for &(keyword, len) in self
            .outputs
            .get(from as usize..to as usize)
            .unwrap_or_default()
        {
            out.push((keyword, end.saturating_sub(len), end));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aho_corasick::{AhoCorasickBuilder, MatchKind};
    use proptest::prelude::*;

    /// What `aho_corasick` reports: every overlapping ASCII case-insensitive occurrence.
    fn reference(words: &[String], hay: &[u8]) -> Vec<Hit> {
        let ac = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(words)
            .unwrap();
        let mut hits: Vec<Hit> = ac
            .find_overlapping_iter(hay)
            .map(|m| (m.pattern().as_usize(), m.start(), m.end()))
            .collect();
        hits.sort_unstable();
        hits
    }

    /// The hits of [`Keywords`], checked to be in order of end, then sorted.
    fn found(keywords: &Keywords, hay: &[u8]) -> Vec<Hit> {
        let mut hits = keywords.hits(hay).unwrap();
        assert!(
            hits.windows(2).all(|w| w[0].2 <= w[1].2),
            "not in order of end"
        );
        hits.sort_unstable();
        hits
    }

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| (*w).to_owned()).collect()
    }

    /// Both ways of walking (one walk, interleaved parts) against the reference: `hay` alone,
    /// and padded past [`LANED_TEXT`] with `hay` at the start, the end and every part boundary.
    fn check(list: &[&str], hay: &[u8]) {
        let words = words(list);
        let keywords = Keywords::new(words.clone());
        assert_eq!(found(&keywords, hay), reference(&words, hay), "{hay:?}");
        let pad = LANED_TEXT + 3;
        let total = pad + hay.len();
        let mut places = vec![0, pad];
        places.extend((1..LANES).flat_map(|k| {
            let boundary = k * total.div_ceil(LANES);
            [
                boundary.saturating_sub(hay.len()),
                boundary.saturating_sub(1),
                boundary,
            ]
        }));
        for at in places {
            let at = at.min(pad);
            let mut long = vec![b'#'; pad];
            long.splice(at..at, hay.iter().copied());
            assert_eq!(
                found(&keywords, &long),
                reference(&words, &long),
                "{hay:?} at {at}"
            );
        }
    }

    #[test]
    fn keywords_at_the_start_and_the_end() {
        check(&["abc", "xyz"], b"abcxyz");
        check(&["abc", "xyz"], b"ABC");
        check(&["abc", "xyz"], b"xYz");
        check(&["abc", "xyz"], b"ab");
        check(&["abc", "xyz"], b"");
    }

    #[test]
    fn overlapping_keywords_are_all_reported() {
        check(&["abab", "bab", "ab", "b"], b"ababab");
        check(&["aa", "aaa"], b"aaaaaaa");
        check(&["s.", "ey", "key", "keys"], b"KeYs.ey.s.");
    }

    #[test]
    fn a_keyword_that_is_a_prefix_of_another() {
        check(&["key", "keyword", "eyw"], b"KEYWORD keys keyw keyword");
        check(&["keyword", "key"], b"keyword");
        check(&["pat", "pat.", "pat.x"], b"PAT.X pat. pat");
    }

    #[test]
    fn non_ascii_bytes_around_keywords() {
        check(&["token"], "ÄtokenÖ tökén TOKEN€".as_bytes());
        check(
            &["token", "n"],
            &[0xff, b't', b'o', b'k', b'e', b'n', 0x80, 0x00, b'N'],
        );
        // Only ASCII letters have another case: `É` does not match `é`.
        check(&["clé"], "CLÉ clé Clé".as_bytes());
    }

    #[test]
    fn only_ascii_letters_fold() {
        // `[` is `{` with the 0x20 bit cleared, `@` is a backtick's; neither is a case pair.
        check(&["{a", "`b"], b"[A {A @B `B");
        check(&["_x"], b"\x7fx _X");
    }

    #[test]
    fn without_keywords_nothing_is_found() {
        let keywords = Keywords::new(Vec::new());
        assert_eq!(keywords.hits(b"token"), Some(Vec::new()));
        assert_eq!(keywords.hits(&[b'k'; 5000]), Some(Vec::new()));
    }

    #[test]
    fn an_empty_keyword_or_too_many_states_leave_no_automaton() {
        assert_eq!(Keywords::new(words(&["a", ""])).hits(b"a"), None);
        // 3 000 keywords of 30 distinct bytes each: ~90 000 states do not fit `u16` offsets.
        let many: Vec<String> = (0..3000)
            .map(|i| format!("{i:04}{}", "abcdefghijklmnopqrstuvwxyz"))
            .collect();
        assert_eq!(Keywords::new(many).hits(b"0001abc"), None);
    }

    #[test]
    fn the_builtin_keywords_build_an_automaton() {
        let words = super::super::Scanner::builtin().keywords.words();
        assert!(words.len() > 200);
        let keywords = Keywords::new(words.to_vec());
        let dfa = keywords.dfa.as_ref().unwrap();
        assert!(dfa.stride < 64, "{} columns", dfa.stride);
    }

    /// Text made of keyword fragments (whole keywords, their prefixes and suffixes) in random
    /// ASCII case, joined by separators that include non-ASCII and control bytes.
    fn fragment_text(words: Vec<String>, max: usize) -> impl Strategy<Value = Vec<u8>> {
        let piece = (
            prop::sample::select(words),
            0usize..3,
            any::<prop::sample::Index>(),
            prop::collection::vec(any::<bool>(), 40),
            prop::sample::select(vec!["", "", " ", "_", ".", "=", "é", "\u{0}", "\n", "x"]),
        )
            .prop_map(|(word, kind, cut, upper, sep)| {
                let cut = cut.index(word.len() + 1);
                let part = match kind {
                    0 => &word[..],
                    1 => &word[..cut],
                    _ => &word[cut..],
                };
                let mut bytes: Vec<u8> = part
                    .bytes()
                    .zip(upper.iter().cycle())
                    .map(|(b, &up)| if up { b.to_ascii_uppercase() } else { b })
                    .collect();
                bytes.extend_from_slice(sep.as_bytes());
                bytes
            });
        prop::collection::vec(piece, 0..max).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn builtin_keywords_match_the_reference(
            hay in fragment_text(super::super::Scanner::builtin().keywords.words().to_vec(), 400),
        ) {
            let keywords = &super::super::Scanner::builtin().keywords;
            prop_assert_eq!(found(keywords, &hay), reference(keywords.words(), &hay));
        }

        #[test]
        fn dense_overlapping_keywords_match_the_reference(
            list in prop::collection::vec("[abAB.]{1,5}", 1..12),
            hay in "[abAB.é]{0,1500}",
        ) {
            let list: Vec<String> = list.iter().map(|w| w.to_ascii_lowercase()).collect();
            let keywords = Keywords::new(list.clone());
            prop_assert_eq!(found(&keywords, hay.as_bytes()), reference(&list, hay.as_bytes()));
        }
    }
}
