//! Prints the TypeScript declarations of the bindings' options, from core's option
//! tables (`scripts/regenerate` writes them into the Node and wasm packages).

fn main() {
    print!("{}", undertone_core::sdk::host::typescript());
}
