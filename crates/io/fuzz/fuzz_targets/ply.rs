//! Any bytes given to the ply loader give a scene or an error, never a panic, a hang or a
//! huge allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use raypick_io::{read_bytes, Format};

fuzz_target!(|data: &[u8]| {
    if let Err(e) = read_bytes(data, Format::Ply, "fuzz.ply") {
        // A caught parser panic comes back as an internal error: report it as a crash.
        assert!(e.is_bad_input(), "{e}");
    }
});
