//! Siconos `.dat` text reader on arbitrary bytes: `parse_problem_with` (layout detected), under
//! the limit of 256 MiB, must give a problem or a typed error, never a panic, a hang or an
//! allocation beyond the limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nonsmooth_numerics::io::{ReadOptions, parse_problem_with};

fuzz_target!(|data: &[u8]| {
    let options = ReadOptions::default().with_max_bytes(256 << 20);
    let _ = parse_problem_with(&String::from_utf8_lossy(data), None, &options);
});
