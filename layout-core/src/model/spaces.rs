//! What a memory space `S(n)` holds: one row a space, with the words
//! `explain` uses and what each backend does with it (its name in dumps,
//! host or device memory, which of jax's `memory_analysis()` figures count
//! it). A new space, or a new fact about one, is one row here; the memory
//! report and TPU sizing read these rows (docs/memory-report.md, "Memory
//! spaces").

/// What one backend does with a memory space.
///
/// ```
/// # use xla_layout_core::space_info;
/// let smem = space_info(2).tpu;
/// assert_eq!(smem.name, Some("SMEM"));
/// assert!(smem.sized_by_elements && !smem.in_peak);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct SpaceUse {
    /// The backend's name for the space where its dumps show what it holds
    /// (`HBM`, `VMEM`, …); `None` elsewhere ("memory space N").
    pub name: Option<&'static str>,
    /// Host memory to jax: its bytes are the `host_*` fields.
    pub host: bool,
    /// Counted in jax's `peak_memory_in_bytes`.
    pub in_peak: bool,
    /// Its temporary heap is (part of) jax's `temp_size_in_bytes`.
    pub in_temp: bool,
    /// Temporaries start at multiples of [`crate::tpu::HEAP_PAGE`] (a
    /// TPU's HBM heap: every offset in the fixtures' buffer assignments).
    pub paged_heap: bool,
    /// Arrays take their elements' bytes, not their tiles' (a TPU's SMEM
    /// holds words: [`crate::tpu::Sizing::Elements`]).
    pub sized_by_elements: bool,
}

/// A memory space: its words for people and what each backend does with
/// it ([`space_info`]).
///
/// ```
/// # use xla_layout_core::space_info;
/// let host = space_info(5);
/// assert_eq!(host.description, "pinned host memory");
/// assert!(host.tpu.host && host.gpu.host && !host.cpu.host); // the CPU's host is its device
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct SpaceInfo {
    /// The space's number, `n` of `S(n)` (a buffer assignment's color).
    pub number: i64,
    /// What the space is, in words (docs/xla-layouts.md §g).
    pub description: &'static str,
    /// On a TPU.
    pub tpu: SpaceUse,
    /// On the CPU.
    pub cpu: SpaceUse,
    /// On a GPU.
    pub gpu: SpaceUse,
}

/// A TPU space with no name, out of the peak and temp: the flags and
/// scalars of spaces 2, 4 and 6 (docs/memory-report.md).
const TPU_OTHER: SpaceUse = SpaceUse {
    name: None,
    host: false,
    in_peak: false,
    in_temp: false,
    paged_heap: false,
    sized_by_elements: false,
};

/// A device space that counts in the peak and temp: every CPU and GPU
/// one, and the base of TPU rows that do.
const DEVICE: SpaceUse = SpaceUse {
    in_peak: true,
    in_temp: true,
    ..TPU_OTHER
};

/// Pinned host memory where it is the host's: in the peak (on a TPU an
/// offloading fixture's peak was 33% low without it), not in temp.
const HOST: SpaceUse = SpaceUse {
    name: Some("pinned host"),
    host: true,
    in_peak: true,
    ..TPU_OTHER
};

/// Any space without a row of its own.
const OTHER: SpaceInfo = SpaceInfo {
    number: -1,
    description: "device-specific memory space",
    tpu: TPU_OTHER,
    cpu: DEVICE,
    gpu: DEVICE,
};

/// The spaces with something to say, by number.
const SPACES: [SpaceInfo; 6] = [
    SpaceInfo {
        number: 0,
        description: "device memory (HBM)",
        tpu: SpaceUse {
            name: Some("HBM"),
            in_temp: true,
            paged_heap: true,
            ..DEVICE
        },
        cpu: SpaceUse {
            name: Some("memory"),
            ..DEVICE
        },
        gpu: SpaceUse {
            name: Some("device memory"),
            ..DEVICE
        },
    },
    SpaceInfo {
        number: 1,
        description: "alternate/fast memory (TPU VMEM)",
        // In the peak (as HBM and VMEM at one step, within 0.2% on 12 of
        // 18 fixtures), not in temp: a TPU's temp is its HBM heap.
        tpu: SpaceUse {
            name: Some("VMEM"),
            in_temp: false,
            ..DEVICE
        },
        ..OTHER
    },
    SpaceInfo {
        number: 2,
        description: "device-specific memory space (TPU SMEM)",
        tpu: SpaceUse {
            name: Some("SMEM"),
            sized_by_elements: true,
            ..TPU_OTHER
        },
        ..OTHER
    },
    // v4's space 3: out of the peak, the v4 fixture's was 71% low.
    SpaceInfo {
        number: 3,
        tpu: SpaceUse {
            in_peak: true,
            ..TPU_OTHER
        },
        ..OTHER
    },
    SpaceInfo {
        number: 5,
        description: "pinned host memory",
        tpu: HOST,
        // The CPU's `S(5)` is its own memory: jax counts it as device.
        cpu: DEVICE,
        // Host memory by XLA's GPU rules; unnamed: no GPU dump here shows
        // what its report calls it.
        gpu: SpaceUse { name: None, ..HOST },
    },
    // XLA's constant for 6 names unpinned host memory, but TPU programs
    // put small device buffers there (their buffer assignment labels it
    // `color_6`): `explain` says both rather than guess.
    SpaceInfo {
        number: 6,
        description: "memory space 6 (XLA's unpinned-host constant; TPU uses it for small device buffers)",
        ..OTHER
    },
];

/// What memory space `n` holds ([`SpaceInfo`]); a space with no row of
/// its own is device memory with no name.
///
/// ```
/// # use xla_layout_core::space_info;
/// assert_eq!(space_info(0).tpu.name, Some("HBM"));
/// assert!(space_info(0).tpu.paged_heap);
/// assert_eq!(space_info(7).description, "device-specific memory space");
/// assert_eq!(space_info(7).number, 7);
/// ```
pub const fn space_info(n: i64) -> SpaceInfo {
    let mut i = 0;
    while i < SPACES.len() {
        if SPACES[i].number == n {
            return SPACES[i];
        }
        i += 1;
    }
    SpaceInfo { number: n, ..OTHER }
}

/// A readable name for memory space `n` as text shapes use it
/// (docs/xla-layouts.md §g): [`SpaceInfo::description`].
///
/// ```
/// # use xla_layout_core::memory_space_name;
/// assert_eq!(memory_space_name(1), "alternate/fast memory (TPU VMEM)");
/// assert_eq!(memory_space_name(3), "device-specific memory space");
/// ```
pub const fn memory_space_name(n: i8) -> &'static str {
    space_info(n as i64).description
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One row a space, found by its number; host memory is never a
    /// device's temporary heap, nor sized by its elements.
    #[test]
    fn rows_are_one_per_space_and_consistent() {
        for (i, row) in SPACES.iter().enumerate() {
            assert!(SPACES[..i].iter().all(|r| r.number != row.number));
        }
        for n in -300..=300 {
            let info = space_info(n);
            assert_eq!(info.number, n);
            for u in [info.tpu, info.cpu, info.gpu] {
                assert!(!(u.host && (u.in_temp || u.paged_heap || u.sized_by_elements)));
            }
        }
        assert_eq!(memory_space_name(-56), "device-specific memory space");
    }
}
