//! `pmix-wire`: decode, inspect and encode OpenPMIx bfrops wire bytes. See `tools/cli/CLI.md`.

fn main() {
    let code = pmix_wire::run(
        std::env::args_os(),
        &mut std::io::stdin().lock(),
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    std::process::exit(code);
}
