//! `pmix-prrte-bridge`: a SERVER.md server backed by a real PRRTE DVM; see
//! [`pmix_conformance::bridge::prrte`].

use std::process::ExitCode;

fn main() -> ExitCode {
    pmix_conformance::bridge::prrte::main(std::env::args().skip(1))
}
