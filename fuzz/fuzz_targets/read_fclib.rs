//! FCLIB (HDF5) reader on arbitrary bytes: `read_fclib_bytes`, under the limit of 256 MiB, must
//! give a problem or a typed error, never a panic, a hang or an allocation beyond the limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nonsmooth_numerics::io::ReadOptions;
use nonsmooth_numerics::io::fclib::read_fclib_bytes;

fuzz_target!(|data: &[u8]| {
    let options = ReadOptions::default().with_max_bytes(256 << 20);
    let _ = read_fclib_bytes(data.to_vec(), &options);
});
