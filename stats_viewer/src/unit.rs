//! The time unit a frames report prints in, picked from the data: sub-millisecond frames in ms
//! with three decimals would read as `+0.000` however far apart the arms are.

/// A unit for millisecond values: µs when every finite value is under 1 ms, else ms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeUnit {
    pub name: &'static str,
    /// Milliseconds to this unit.
    pub scale: f64,
}

impl TimeUnit {
    pub fn for_ms(values: impl IntoIterator<Item = f64>) -> TimeUnit {
        let top = values
            .into_iter()
            .filter(|v| v.is_finite())
            .fold(0f64, |m, v| m.max(v.abs()));
        if top < 1.0 {
            TimeUnit {
                name: "µs",
                scale: 1000.0,
            }
        } else {
            TimeUnit {
                name: "ms",
                scale: 1.0,
            }
        }
    }

    /// A millisecond value in this unit, three decimals.
    pub fn show(self, ms: f64) -> String {
        format!("{:.3}", ms * self.scale)
    }

    /// A signed millisecond difference in this unit, three decimals.
    pub fn show_delta(self, ms: f64) -> String {
        format!("{:+.3}", ms * self.scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_follows_the_data() {
        let u = TimeUnit::for_ms([0.0004, 0.0009, 0.0006, 0.0011]);
        assert_eq!(u.name, "µs");
        assert_eq!(
            (u.show(0.0004), u.show_delta(0.0002)),
            ("0.400".into(), "+0.200".into())
        );
        assert_eq!(TimeUnit::for_ms([16.6, 33.3]).name, "ms");
        assert_eq!(TimeUnit::for_ms([0.5, 1.0]).name, "ms");
        assert_eq!(TimeUnit::for_ms([0.5, f64::INFINITY]).name, "µs");
        assert_eq!(TimeUnit::for_ms([16.6]).show_delta(-1.25), "-1.250");
    }
}
