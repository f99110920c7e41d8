//! `Debug` for flag sets declared outside `bitflags!`.

/// Implements `Debug` as `bitflags!` would: `Name(A | B)`, or `Name(0x0)` when empty.
/// Flag sets are declared outside the macro so they can derive `FromZeros`.
macro_rules! flags_debug {
    ($name:ident) => {
        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(concat!(stringify!($name), "("))?;
                if self.is_empty() {
                    f.write_str("0x0")?;
                } else {
                    bitflags::parser::to_writer(self, &mut *f)?;
                }
                f.write_str(")")
            }
        }
    };
}
pub(crate) use flags_debug;
