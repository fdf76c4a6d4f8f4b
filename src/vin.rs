//! Vehicle identification numbers: the 17-character VIN checked the way
//! 49 CFR 565 builds it (no I, O or Q; the check digit in position 9), and
//! decoded offline: the manufacturer from the first three characters (the
//! WMI) by a small table of the chassis and towable makers RV shops see, and
//! the model year from position 10.
//!
//! Pure: no I/O. The current year is an argument so decoding is testable.

use std::fmt;

/// A VIN that passed every check, with what could be read from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vin {
    /// Upper case, no spaces.
    pub text: String,
    /// The maker the WMI names, if the offline table has it.
    pub manufacturer: Option<&'static str>,
    pub model_year: Option<i32>,
}

/// What is wrong with a VIN, said so a writer can fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VinError {
    Length(usize),
    /// A letter VINs never use (I, O, Q), or a character that is not a
    /// letter or digit, with its 1-based position.
    Character {
        position: usize,
        found: char,
    },
    CheckDigit {
        expected: char,
        found: char,
    },
}

impl fmt::Display for VinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Length(n) => write!(f, "has {n} characters; a VIN has 17"),
            Self::Character { position, found } if matches!(found, 'I' | 'O' | 'Q') => write!(
                f,
                "has the letter {found} at position {position}; VINs never use I, O or Q (read it as 1 or 0?)"
            ),
            Self::Character { position, found } => {
                write!(f, "has {found:?} at position {position}; a VIN is letters and digits only")
            }
            Self::CheckDigit { expected, found } => write!(
                f,
                "fails its check digit: position 9 is {found}, the other characters make it {expected} (a character is mistyped)"
            ),
        }
    }
}

impl std::error::Error for VinError {}

/// Checks `raw` (spaces and dashes ignored, any case) and decodes it.
pub fn check(raw: &str, this_year: i32) -> Result<Vin, VinError> {
    let text: String = raw
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let chars: Vec<char> = text.chars().collect();
    if chars.len() != 17 {
        return Err(VinError::Length(chars.len()));
    }
    let expected = check_digit(&chars)?;
    if chars[8] != expected {
        return Err(VinError::CheckDigit {
            expected,
            found: chars[8],
        });
    }
    let maker = WMI
        .iter()
        .find(|(wmi, _, _)| text.starts_with(wmi))
        .map(|&(_, name, kind)| (name, kind));
    let model_year = model_year(&chars, maker.map(|m| m.1), this_year);
    Ok(Vin {
        text,
        manufacturer: maker.map(|m| m.0),
        model_year,
    })
}

/// The check digit 17 characters call for (position 9 itself weighs 0).
fn check_digit(chars: &[char]) -> Result<char, VinError> {
    let mut sum = 0;
    for (i, &c) in chars.iter().enumerate() {
        let value = transliterate(c).ok_or(VinError::Character {
            position: i + 1,
            found: c,
        })?;
        sum += value * WEIGHTS[i];
    }
    Ok(match sum % 11 {
        10 => 'X',
        d => char::from_digit(d, 10).expect("a remainder of 11 is one digit"),
    })
}

/// `body` (17 characters) with its position 9 set to the check digit the
/// others call for: how test and seed data get VINs that pass.
pub fn with_check_digit(body: &str) -> Result<String, VinError> {
    let mut chars: Vec<char> = body.chars().map(|c| c.to_ascii_uppercase()).collect();
    if chars.len() != 17 {
        return Err(VinError::Length(chars.len()));
    }
    chars[8] = check_digit(&chars)?;
    Ok(chars.into_iter().collect())
}

const WEIGHTS: [u32; 17] = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];

fn transliterate(c: char) -> Option<u32> {
    Some(match c {
        '0'..='9' => c.to_digit(10)?,
        'A' | 'J' => 1,
        'B' | 'K' | 'S' => 2,
        'C' | 'L' | 'T' => 3,
        'D' | 'M' | 'U' => 4,
        'E' | 'N' | 'V' => 5,
        'F' | 'W' => 6,
        'G' | 'P' | 'X' => 7,
        'H' | 'Y' => 8,
        'R' | 'Z' => 9,
        _ => return None,
    })
}

/// Which year rule a maker's VINs follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Motor vehicles up to 10,000 lb GVWR: a letter in position 7 puts the
    /// year code in the 2010–2039 cycle, a digit in 1980–2009.
    Chassis,
    /// Trailers are outside that rule: the code's latest year that is not
    /// past next model year.
    Towable,
}

/// WMIs of the makers an RV shop sees most, chassis and towables. A VIN
/// whose WMI is not here still validates; it just names no maker.
const WMI: &[(&str, &str, Kind)] = &[
    ("1FB", "Ford", Kind::Chassis),
    ("1FC", "Ford", Kind::Chassis),
    ("1FD", "Ford", Kind::Chassis),
    ("1FT", "Ford", Kind::Chassis),
    ("1GB", "Chevrolet", Kind::Chassis),
    ("1GC", "Chevrolet", Kind::Chassis),
    ("1GD", "GMC", Kind::Chassis),
    ("1GT", "GMC", Kind::Chassis),
    ("3C6", "Ram", Kind::Chassis),
    ("3C7", "Ram", Kind::Chassis),
    ("4UZ", "Freightliner Custom Chassis", Kind::Chassis),
    ("4VZ", "Spartan", Kind::Chassis),
    ("WD3", "Mercedes-Benz", Kind::Chassis),
    ("W1W", "Mercedes-Benz", Kind::Chassis),
    ("W1X", "Mercedes-Benz", Kind::Chassis),
    ("W1Y", "Mercedes-Benz", Kind::Chassis),
    ("1UJ", "Jayco", Kind::Towable),
    ("4X4", "Forest River", Kind::Towable),
    ("5ZT", "Forest River", Kind::Towable),
    ("4YD", "Keystone RV", Kind::Towable),
    ("573", "Grand Design RV", Kind::Towable),
    ("1ST", "Airstream", Kind::Towable),
];

/// Position 10's code: A–Y (no I, O, Q, U, Z) then 1–9, a 30-year cycle
/// from 1980.
const YEAR_CODES: &str = "ABCDEFGHJKLMNPRSTVWXY123456789";

fn model_year(chars: &[char], kind: Option<Kind>, this_year: i32) -> Option<i32> {
    let offset = YEAR_CODES.chars().position(|c| c == chars[9])? as i32;
    let first = 1980 + offset;
    let second = first + 30;
    Some(match kind {
        Some(Kind::Chassis) if chars[6].is_ascii_alphabetic() => second,
        Some(Kind::Chassis) => first,
        _ if second <= this_year + 1 => second,
        _ => first,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_check_digit(body: &str) -> String {
        super::with_check_digit(body).unwrap()
    }

    #[test]
    fn a_known_good_vin_passes() {
        // The check-digit example NHTSA's rule is usually shown with.
        let v = check("1M8GDM9AXKP042788", 2026).unwrap();
        assert_eq!(v.text, "1M8GDM9AXKP042788");
        assert_eq!(v.manufacturer, None);
        // Not in the table, so the trailer rule: K is 1989 or 2019.
        assert_eq!(v.model_year, Some(2019));
    }

    #[test]
    fn spaces_dashes_and_case_are_ignored() {
        assert_eq!(
            check("1m8gdm9a-xkp 042788", 2026).unwrap().text,
            "1M8GDM9AXKP042788"
        );
    }

    #[test]
    fn wrong_length_says_how_long() {
        assert_eq!(check("123", 2026), Err(VinError::Length(3)));
        let e = check("1M8GDM9AXKP0427881", 2026).unwrap_err();
        assert_eq!(e.to_string(), "has 18 characters; a VIN has 17");
    }

    #[test]
    fn i_o_q_are_refused_with_their_position() {
        let e = check("1M8GDM9AXKP04278O", 2026).unwrap_err();
        assert_eq!(
            e,
            VinError::Character {
                position: 17,
                found: 'O'
            }
        );
        assert!(e.to_string().contains("never use I, O or Q"), "{e}");
        assert!(check("IM8GDM9AXKP042788", 2026).is_err());
        assert!(check("1M8GDM9AXKQ042788", 2026).is_err());
        let e = check("1M8GDM9AXKP04278*", 2026).unwrap_err();
        assert!(e.to_string().contains("letters and digits only"), "{e}");
    }

    #[test]
    fn a_mistyped_character_fails_the_check_digit() {
        let e = check("1M8GDM9AXKP042789", 2026).unwrap_err();
        assert!(
            matches!(e, VinError::CheckDigit { found: 'X', .. }),
            "{e:?}"
        );
        assert!(e.to_string().contains("position 9 is X"), "{e}");
    }

    #[test]
    fn rv_makers_and_model_years_decode() {
        let cases = [
            // Ford E-450 cutaway under a class C, 2021 (position 7 a letter).
            ("1FDXE4FN0MDC12345", "Ford", 2021),
            // Ford F-53 stripped chassis, 2008 (position 7 a digit).
            ("1FCNF53S080A12345", "Ford", 2008),
            // Freightliner XC chassis under a diesel pusher, 2016.
            ("4UZFCHCYXGCH12345", "Freightliner Custom Chassis", 2016),
            // Sprinter under a class B, 2022.
            ("W1X4ECHY0NT012345", "Mercedes-Benz", 2022),
            // Jayco travel trailer, 2019.
            ("1UJBJ0BN0K1234567", "Jayco", 2019),
            // Forest River fifth wheel, 2023.
            ("4X4FRLL25PV123456", "Forest River", 2023),
            // Keystone toy hauler, 2004 (the trailer rule: 2034 is not yet).
            ("4YDF30R2X45012345", "Keystone RV", 2004),
        ];
        for (body, maker, year) in cases {
            let vin = with_check_digit(body);
            let v = check(&vin, 2026).unwrap_or_else(|e| panic!("{vin}: {e}"));
            assert_eq!(v.manufacturer, Some(maker), "{vin}");
            assert_eq!(v.model_year, Some(year), "{vin}");
        }
    }

    #[test]
    fn a_towable_year_code_is_never_past_next_model_year() {
        // 'T' is 1996 or 2026: in 2026 a trailer's T is 2026, in 2024 it is 1996.
        let vin = with_check_digit("1UJBJ0BN0T1234567");
        assert_eq!(check(&vin, 2026).unwrap().model_year, Some(2026));
        assert_eq!(check(&vin, 2024).unwrap().model_year, Some(1996));
    }
}
