//! The clock: wall time as whole seconds since the Unix epoch (the unit every record and claim
//! stores), and durations in seconds as people write and read them. A leaf: it imports nothing of
//! the crate, so any layer may ask the time.

/// Seconds since the Unix epoch; 0 when the system clock is set before it.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// `12h`, `30m`, `45s`, `2d` or plain seconds.
pub fn parse_duration(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let n: u64 = digits.parse().ok()?;
    let scale = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86400,
        _ => return None,
    };
    n.checked_mul(scale)
}

pub fn format_duration(secs: u64) -> String {
    match secs {
        s if s % 86400 == 0 && s >= 86400 => format!("{}d", s / 86400),
        s if s % 3600 == 0 && s >= 3600 => format!("{}h", s / 3600),
        s if s % 60 == 0 && s >= 60 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

/// How long ago, for people: `3m ago`.
pub fn age(now: u64, then: u64) -> String {
    let secs = now.saturating_sub(then);
    match secs {
        s if s < 60 => format!("{s}s ago"),
        s if s < 3600 => format!("{}m ago", s / 60),
        s if s < 86400 => format!("{}h ago", s / 3600),
        s => format!("{}d ago", s / 86400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_reads_after_2023_and_never_runs_backwards() {
        let first = now();
        assert!(first > 1_700_000_000, "{first}");
        assert!(now() >= first);
    }

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(parse_duration("12h"), Some(43200));
        assert_eq!(parse_duration("30m"), Some(1800));
        assert_eq!(parse_duration("90"), Some(90));
        assert_eq!(parse_duration("2d"), Some(172800));
        assert_eq!(parse_duration("soon"), None);
        assert_eq!(format_duration(43200), "12h");
    }

    #[test]
    fn an_age_is_told_in_its_largest_whole_unit() {
        assert_eq!(age(100, 90), "10s ago");
        assert_eq!(age(4000, 100), "1h ago");
        assert_eq!(
            age(100, 200),
            "0s ago",
            "a clock set back is not a negative age"
        );
    }
}
