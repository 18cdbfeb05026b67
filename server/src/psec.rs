//! The security (psec) modules the server offers, and what it does with a peer that names
//! another one.
//!
//! An OpenPMIx server opens its psec modules once, at init; `none` is opened only when the
//! process's `psec` MCA variable (`PMIX_MCA_psec`, or `PMIX_SECURITY_MODE` converted to it)
//! names it (`component_open` in `src/mca/psec/none/psec_none_component.c`, 4.2.2 to
//! master alike), so a server started with defaults offers `native` (and `munge` where it is
//! built and a munged runs). The connect message names the peer's module; the server looks
//! it up among its own (`pmix_psec_base_assign_module` in `psec_base_fns.c`) and, when it is
//! not there, closes the socket without writing a byte (`goto error` then
//! `CLOSE_THE_SOCKET` in `pmix_ptl_base_connection_handler`, `ptl_base_connection_hdlr.c`).
//! The client reads the end of the stream where it waits for the reply's status and fails
//! `PMIx_Init` (`PMIX_ERR_UNREACH` in 5.0.7 to 6.1.0, `PMIX_ERR_COMM_FAILURE` in 7.0.0rc1).
//! pmix-server does the same: [`Psec::accepts`] decides, and the listener closes the
//! connection of a peer it refuses without a reply.
//!
//! pmix-server does not check credentials: `native` over TCP carries the peer's uid and gid
//! as it states them, which OpenPMIx's native module compares with the job's (a local,
//! same-user server accepts them).

use std::fmt;
use std::str::FromStr;

/// One psec module pmix-server can offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PsecModule {
    /// `native`: the peer's uid and gid (OpenPMIx priority 10).
    Native,
    /// `none`: no credential at all (OpenPMIx priority 0, opened only when asked for).
    None,
}

impl PsecModule {
    /// The module's name on the wire and in `PMIX_SECURITY_MODE`.
    pub fn name(self) -> &'static str {
        match self {
            PsecModule::Native => "native",
            PsecModule::None => "none",
        }
    }
}

/// The psec modules a server offers, highest OpenPMIx priority first (the order
/// `pmix_psec_base_get_available_modules` lists them in `PMIX_SECURITY_MODE`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Psec(Vec<PsecModule>);

impl Default for Psec {
    /// `native` only: what an OpenPMIx server offers when started with defaults and no
    /// munge (the 6.x builds of this project have none; 4.2.2 and 5.0.7 add munge).
    fn default() -> Psec {
        Psec(vec![PsecModule::Native])
    }
}

impl Psec {
    /// Whether a peer naming `module` in its connect message is admitted.
    pub fn accepts(&self, module: &str) -> bool {
        self.0.iter().any(|m| m.name() == module)
    }

    /// The modules offered, in priority order.
    pub fn modules(&self) -> &[PsecModule] {
        &self.0
    }
}

impl fmt::Display for Psec {
    /// The comma-separated list a server passes its clients in `PMIX_SECURITY_MODE`
    /// (`native`, or `native,none`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.0.iter().map(|m| m.name()).collect();
        f.write_str(&names.join(","))
    }
}

impl FromStr for Psec {
    type Err = String;

    /// A comma-separated list of `native` and `none`, in any order; at least one.
    fn from_str(s: &str) -> Result<Psec, String> {
        let mut out = Vec::new();
        for word in s.split(',').map(str::trim) {
            let m = match word {
                "native" => PsecModule::Native,
                "none" => PsecModule::None,
                "munge" => {
                    return Err(
                        "munge is not offered: pmix-server cannot validate a munge credential"
                            .into(),
                    )
                }
                other => return Err(format!("unknown psec module '{other}' (native, none)")),
            };
            if !out.contains(&m) {
                out.push(m);
            }
        }
        out.sort();
        Ok(Psec(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_offers_native_alone() {
        let p = Psec::default();
        assert!(p.accepts("native"));
        assert!(!p.accepts("none"));
        assert!(!p.accepts("munge"));
        assert!(!p.accepts(""));
        assert_eq!(p.to_string(), "native");
    }

    #[test]
    fn lists_parse_in_priority_order() {
        let p: Psec = "none, native,none".parse().unwrap();
        assert_eq!(p.modules(), [PsecModule::Native, PsecModule::None]);
        assert_eq!(p.to_string(), "native,none");
        assert!(p.accepts("none") && p.accepts("native"));
        let only: Psec = "none".parse().unwrap();
        assert!(!only.accepts("native"));
    }

    #[test]
    fn unknown_and_unvalidated_modules_are_refused() {
        assert!("munge".parse::<Psec>().unwrap_err().contains("munge"));
        assert!("native,bogus"
            .parse::<Psec>()
            .unwrap_err()
            .contains("bogus"));
        assert!("".parse::<Psec>().is_err());
    }
}
