//! Exact decimals: the producer's two-decimal `F` values and ratio rounding.
//!
//! MobileGL prints `draws/f`, `acc/draw` and every `bytes/f[...]` value with its own helper:
//! hundredths = (num·100 + den/2) / den in integer arithmetic (round half up). Keeping those values
//! as integer hundredths makes re-derivation and comparison exact (no f32/f64 drift).

use std::fmt;

/// A non-negative decimal with exactly two fractional digits, stored as hundredths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fixed2(pub u64);

impl Fixed2 {
    /// Parses `D+ "." DD` exactly (no sign, no exponent, exactly two decimals).
    pub fn parse(s: &str) -> Option<Fixed2> {
        let (int, frac) = s.split_once('.')?;
        if int.is_empty() || frac.len() != 2 || !all_digits(int) || !all_digits(frac) {
            return None;
        }
        let i: u64 = int.parse().ok()?;
        let f: u64 = frac.parse().ok()?;
        i.checked_mul(100)?.checked_add(f).map(Fixed2)
    }

    /// The producer's rounding: `None` for a zero denominator (printed `n/a`).
    pub fn ratio(num: u64, den: u64) -> Option<Fixed2> {
        if den == 0 {
            return None;
        }
        let h = (u128::from(num) * 100 + u128::from(den) / 2) / u128::from(den);
        u64::try_from(h).ok().map(Fixed2)
    }

    pub fn hundredths(self) -> u64 {
        self.0
    }

    pub fn to_f64(self) -> f64 {
        // Correctly rounded division: the nearest f64 to the decimal, which prints back exactly.
        self.0 as f64 / 100.0
    }
}

impl fmt::Display for Fixed2 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:02}", self.0 / 100, self.0 % 100)
    }
}

pub(crate) fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// An exact signed rational, used for aggregates (Σacc/Σdraws) and A/B deltas so that rounding
/// happens once, at print time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ratio {
    pub num: i128,
    pub den: i128,
}

impl Ratio {
    /// `None` when the denominator is zero.
    pub fn new(num: i128, den: i128) -> Option<Ratio> {
        if den == 0 {
            return None;
        }
        if den < 0 {
            return Some(Ratio {
                num: -num,
                den: -den,
            });
        }
        Some(Ratio { num, den })
    }

    pub fn from_u64(num: u64, den: u64) -> Option<Ratio> {
        Ratio::new(i128::from(num), i128::from(den))
    }

    pub fn from_fixed(v: Fixed2) -> Ratio {
        Ratio {
            num: i128::from(v.0),
            den: 100,
        }
    }

    pub fn from_int(v: u64) -> Ratio {
        Ratio {
            num: i128::from(v),
            den: 1,
        }
    }

    /// self − other, exact. Saturates (never panics) on absurd magnitudes.
    pub fn minus(self, other: Ratio) -> Ratio {
        let num = self
            .num
            .saturating_mul(other.den)
            .saturating_sub(other.num.saturating_mul(self.den));
        let den = self.den.saturating_mul(other.den);
        Ratio { num, den }.reduced()
    }

    /// self / other, exact; `None` when other is zero.
    pub fn divided_by(self, other: Ratio) -> Option<Ratio> {
        Ratio::new(
            self.num.saturating_mul(other.den),
            self.den.saturating_mul(other.num),
        )
        .map(Ratio::reduced)
    }

    pub fn scale(self, k: i128) -> Ratio {
        Ratio {
            num: self.num.saturating_mul(k),
            den: self.den,
        }
        .reduced()
    }

    fn reduced(self) -> Ratio {
        let g = gcd(self.num.unsigned_abs(), self.den.unsigned_abs());
        if g <= 1 {
            return self;
        }
        let g = g as i128;
        Ratio {
            num: self.num / g,
            den: self.den / g,
        }
    }

    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// Decimal text with `places` digits, rounded half away from zero (the producer's rule for
    /// non-negative values). `signed` prefixes `+` for non-negative values.
    pub fn format(self, places: u32, signed: bool) -> String {
        let scale = 10i128.pow(places);
        let neg = self.num < 0;
        let n = self.num.unsigned_abs();
        let d = self.den.unsigned_abs();
        let scale_u = scale.unsigned_abs();
        let scaled = (n.saturating_mul(scale_u) + d / 2) / d;
        let int = scaled / scale_u;
        let frac = scaled % scale_u;
        let sign = if neg && scaled != 0 {
            "-"
        } else if signed {
            "+"
        } else {
            ""
        };
        if places == 0 {
            format!("{sign}{int}")
        } else {
            format!("{sign}{int}.{frac:0width$}", width = places as usize)
        }
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn producer_rounding_is_half_up() {
        assert_eq!(
            Fixed2::ratio(102611, 120).map(|v| v.to_string()),
            Some("855.09".into())
        );
        assert_eq!(
            Fixed2::ratio(1, 8).map(|v| v.to_string()),
            Some("0.13".into())
        );
        assert_eq!(Fixed2::ratio(5, 0), None);
    }

    #[test]
    fn parse_is_strict() {
        assert_eq!(Fixed2::parse("855.09"), Some(Fixed2(85509)));
        assert_eq!(Fixed2::parse("0.00"), Some(Fixed2(0)));
        for bad in ["1.0", "1.000", ".50", "1", "-1.00", "1e2", "1.0x", "NaN"] {
            assert_eq!(Fixed2::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn ratio_formatting() {
        let a = Ratio::from_u64(902, 100).unwrap_or(Ratio { num: 0, den: 1 });
        assert_eq!(a.format(2, false), "9.02");
        let d = Ratio::from_fixed(Fixed2(902)).minus(Ratio::from_fixed(Fixed2(1006)));
        assert_eq!(d.format(2, true), "-1.04");
        let pct = d
            .divided_by(Ratio::from_fixed(Fixed2(1006)))
            .map(|r| r.scale(100).format(2, true));
        assert_eq!(pct.as_deref(), Some("-10.34"));
        assert_eq!(
            Ratio::from_u64(0, 3).map(|r| r.format(2, true)).as_deref(),
            Some("+0.00")
        );
    }
}
