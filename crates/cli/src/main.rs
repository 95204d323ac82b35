//! The `raypick` command.

fn main() {
    println!("raypick");
}
