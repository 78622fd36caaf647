//! Compile-time messages: `const` code cannot format, so a message is
//! joined from its parts into a fixed buffer and panicked with, for the
//! checks of the facade crate and the views' element-type check alike.

/// A piece of a compile-time message.
#[doc(hidden)]
pub enum Part<'a> {
    Str(&'a str),
    Num(u64),
}

/// The longest message, in bytes.
#[doc(hidden)]
pub const MESSAGE: usize = 1024;

/// Joins message parts into a fixed buffer (cut at 1 KiB).
#[doc(hidden)]
pub const fn message(parts: &[Part<'_>]) -> ([u8; MESSAGE], usize) {
    let mut buf = [0u8; MESSAGE];
    let mut n = 0;
    let mut p = 0;
    while p < parts.len() {
        n = match &parts[p] {
            Part::Str(s) => copy_in(&mut buf, n, s.as_bytes()),
            Part::Num(v) => {
                // Digits from the last, then copied in reading order.
                let mut digits = [0u8; 20];
                let (mut v, mut k) = (*v, digits.len());
                loop {
                    k -= 1;
                    digits[k] = b'0' + (v % 10) as u8;
                    v /= 10;
                    if v == 0 {
                        break;
                    }
                }
                copy_in(&mut buf, n, digits.split_at(k).1)
            }
        };
        p += 1;
    }
    let n = whole_chars(&buf, n);
    (buf, n)
}

/// `m` with `s` appended (cut at [`MESSAGE`] bytes, on a whole
/// character), for parts only known in a loop.
#[doc(hidden)]
pub const fn append(m: ([u8; MESSAGE], usize), s: &str) -> ([u8; MESSAGE], usize) {
    let (mut buf, n) = m;
    let n = copy_in(&mut buf, n, s.as_bytes());
    let n = whole_chars(&buf, n);
    (buf, n)
}

/// Copies `bytes` into `buf` from `n` while there is room; the new end.
const fn copy_in(buf: &mut [u8; MESSAGE], mut n: usize, bytes: &[u8]) -> usize {
    let mut i = 0;
    while i < bytes.len() && n < MESSAGE {
        buf[n] = bytes[i];
        n += 1;
        i += 1;
    }
    n
}

/// The length of the longest prefix of `buf[..n]` that ends on a whole
/// UTF-8 character: a message cut at [`MESSAGE`] bytes may end inside
/// one, and [`fail`] must still print it.
const fn whole_chars(buf: &[u8], n: usize) -> usize {
    // The last character's first byte: at most three continuation bytes
    // follow one.
    let mut lead = n;
    while lead > 0 && n - lead < 4 && (buf[lead - 1] & 0xC0) == 0x80 {
        lead -= 1;
    }
    if lead == 0 {
        return n;
    }
    let first = buf[lead - 1];
    let len = match first {
        0x00..=0x7F => 1,
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        _ => 2,
    };
    if lead - 1 + len > n { lead - 1 } else { n }
}

/// Fails compilation with the message.
#[doc(hidden)]
pub const fn fail(message: &([u8; MESSAGE], usize)) -> ! {
    match core::str::from_utf8(message.0.split_at(message.1).0) {
        Ok(s) => panic!("{}", s),
        Err(_) => panic!("layout assertion failed"),
    }
}
