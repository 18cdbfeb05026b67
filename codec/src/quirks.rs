//! The one table of OpenPMIx quirks: places where OpenPMIx's packer and unpacker disagree,
//! where releases disagree for the same component name, and where the C library is buggy.
//!
//! Every entry names the behaviour this codec chose and why; each is covered by a test
//! (`codec/tests/quirks.rs` and the differential suite).

use crate::component::Family;
use crate::types::DataType;

/// Whether a release profile can change the behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuirkKind {
    /// OpenPMIx packs one way and unpacks another.
    SelfInconsistent,
    /// Releases produce different bytes for the same component name; selectable by [`crate::Release`].
    ReleaseDifference,
    /// The C library crashes, over-reads or emits garbage; we define sane behaviour.
    UpstreamBug,
    /// Legacy encoding oddity reproduced byte for byte.
    Legacy,
}

/// One documented quirk.
#[derive(Clone, Copy, Debug)]
pub struct Quirk {
    /// Stable id, referenced from tests and vectors.
    pub id: &'static str,
    /// What kind of quirk.
    pub kind: QuirkKind,
    /// Components affected.
    pub components: &'static str,
    /// The release profiles ([`crate::Release::name`]) whose library shows the behaviour.
    /// For a [`QuirkKind::ReleaseDifference`], the releases on each side are named in
    /// `openpmix`; this lists every release the entry describes.
    pub releases: &'static [&'static str],
    /// What OpenPMIx does.
    pub openpmix: &'static str,
    /// What this codec does, and why.
    pub chosen: &'static str,
}

impl Quirk {
    /// Its one-line summary: the first sentence of what OpenPMIx does.
    pub fn summary(&self) -> &'static str {
        let s = self.openpmix;
        match s.find(". ") {
            Some(i) => &s[..=i],
            None => s,
        }
    }

    /// The entry whose id `text` names (a vector's comment, a report line), if any.
    pub fn named_in(text: &str) -> Option<&'static Quirk> {
        QUIRKS.iter().find(|q| text.contains(q.id))
    }
}

/// Every quirk this codec knows about.
pub const QUIRKS: &[Quirk] = &[
    Quirk {
        id: "D1-datatype-zigzag",
        kind: QuirkKind::SelfInconsistent,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v4 v41 v51 v61",
        openpmix: "DATA_TYPE values (and REGATTR.type) are written as UINT16 (plain varint) but read back as INT16 (zigzag): 14 comes back as 7.",
        chosen: "Write plain varint like C. Read zigzag like C by default, so we decode C's bytes to what C's receiver sees; `DecodeOptions::datatype_as_written` reads plain varint instead.",
    },
    Quirk {
        id: "P1-pointer-sentinel",
        kind: QuirkKind::SelfInconsistent,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v20 ... v61 (v12: nothing)",
        openpmix: "POINTER packs one 0x01 byte per pack call whatever the count, and unpack reads one byte; the receiver's pointer is left untouched.",
        chosen: "Same bytes; decoding yields `count` Value::Pointer. v12 writes nothing and refuses to unpack (-47). Since one byte stands for any count, one decode may produce at most its input's length + 4096 POINTER values in all (a shared budget, spent after the sentinel byte is read: a missing sentinel is -50 as in OpenPMIx; beyond the budget -32), where OpenPMIx allocates whatever the counts say.",
    },
    Quirk {
        id: "R1-flex-decoder-truncation",
        kind: QuirkKind::ReleaseDifference,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v4 v41 v51 v61",
        openpmix: "4.2.x, 5.0.x, 6.0 and 6.1 decode flex integers with psquash, which reads the last available byte as a raw 8-bit tail when input ends inside a varint (UINT16 `ff ff` = 32767); their integer unpacker refuses an empty region with -50 when a call starts there, but for the second or later value of one call it over-reads and then reports PMIX_ERR_FATAL (-63). 7.0 and master return -50 in every case.",
        chosen: "Selectable by Release (Profile::flex_tail): the raw tail, -50 at the start of a call and -63 (without reading) later in the same call for 4.2 ... 6.1; -50 for 7.0 and master.",
    },
    Quirk {
        id: "R2-darray-undef-size",
        kind: QuirkKind::ReleaseDifference,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v21 v3 v4 v41 v51 v61 (v20 unchanged)",
        openpmix: "DATA_ARRAY of UNDEF: 4.2.x, 5.0.x, 6.0 and 6.1 write TAG(0)+SIZE; 7.0 and master write TAG(0) only, return, and silently drop the arrays after it in the same pack call (the buffer is truncated; its count still says all of them).",
        chosen: "Selectable by Release (Profile::darray_undef_has_size). In the 7.0 and master profiles we write TAG(0) only, and refuse (PMIX_ERR_BAD_PARAM) a call where a typeless array is followed by more arrays, rather than silently lose them; the differential suite checks that 7.0 still truncates.",
    },
    Quirk {
        id: "R3-info-array-size-tag",
        kind: QuirkKind::ReleaseDifference,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v20 v21 v3 (INFO_ARRAY, MODEX)",
        openpmix: "The SIZE in front of INFO_ARRAY/MODEX is TAG(UINT64)+be64 in 4.2.x and 5.0.x. 6.0 and 6.1 keep the tag for v20's MODEX only: v20's INFO_ARRAY packer writes a bare be64 but its unpacker still expects the tagged SIZE (its own arrays fail, -46); v21/v3 write and read bare be64. 7.0 and master write bare be64; master's v20 INFO_ARRAY unpacker, like 6.0's and 6.1's, still expects the tagged SIZE (found by an independent corpus: the codec read master's one-element array as an empty-keyed UNDEF; 7.0 has no v20).",
        chosen: "Selectable by Release (Profile::modex_size_tagged_in, info_array_size_tagged_in, info_array_unpack_tagged_in): encode like the packer, decode like the unpacker.",
    },
    Quirk {
        id: "R4-stats-types",
        kind: QuirkKind::ReleaseDifference,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v41",
        openpmix: "PROC/DISK/NET/NODE_STATS (61-64) are registered in 4.2.x-6.0 and gone in master (-16).",
        chosen: "Registered only in Release::OpenPmix4_2.",
    },
    Quirk {
        id: "R5-string-unpack",
        kind: QuirkKind::ReleaseDifference,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "all",
        openpmix: "7.0 and master: a length <= 0 is NULL and the last byte is forced to NUL. 4.2.x, 5.0.x, 6.0 and 6.1: only 0 is NULL (a negative length reaches malloc, -29) and the last byte is kept (`02 06 616263` in v41 reads \"abc\" there, \"ab\" in 7.0).",
        chosen: "Selectable by Release (Profile::negative_string_is_null, string_forces_nul); the string ends at its first NUL either way (that is what a C reader sees).",
    },
    Quirk {
        id: "R6-nesting-cap",
        kind: QuirkKind::ReleaseDifference,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v21 ... v61",
        openpmix: "Master caps DATA_ARRAY nesting at 100 (pack -21, unpack -20); 4.2.2 recurses without limit. Neither caps INFO_ARRAY in VALUE in INFO_ARRAY, nor QUERY in a qualifier's VALUE: deep input overflows the stack.",
        chosen: "Both profiles cap decoding at 100 levels of each of DATA_ARRAY, INFO_ARRAY and QUERY (-20; a decoder must not recurse without bound); the master profile also caps DATA_ARRAY encoding.",
    },
    Quirk {
        id: "R7-nested-count-check",
        kind: QuirkKind::ReleaseDifference,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v21 ... v61",
        openpmix: "7.0 and master refuse a DATA_ARRAY count larger than the remaining bytes with -50 before they allocate the element storage; 4.2.x ... 6.1 (and v20 in every release) allocate first: the elements of a type they can hold then run past the end (-50), but a type they cannot hold (quirk U8) is refused for its type whatever the count (-32, v20 -47).",
        chosen: "Never allocate from a count: capacity is bounded by the remaining bytes. The order of the two refusals is the release's (Profile::darray_count_before_storage): the count first in 7.0 and master, the element type first up to 6.1 and in v20. Recorded from 4.2.2 ... 7.0.0rc1 (the `gap.lying-darray` vectors).",
    },
    Quirk {
        id: "U1-value-data-buffer",
        kind: QuirkKind::UpstreamBug,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v41 v51 v61",
        openpmix: "A VALUE of DATA_BUFFER packs the address of the union instead of the buffer: garbage on the wire.",
        chosen: "Refuse to encode it (PMIX_ERR_NOT_SUPPORTED); decode the layout the unpacker expects (SIZE + bytes).",
    },
    Quirk {
        id: "U2-v12-narrow-enums",
        kind: QuirkKind::UpstreamBug,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v12 (COMMAND, SCOPE, DATA_RANGE, PERSIST, PROC_RANK); v20 (COMMAND)",
        openpmix: "Top-level packs remap 1-byte types to 4-byte int packers, which read 4 bytes per element from a 1-byte array: with more than one value the bytes are garbage.",
        chosen: "Write each value zero-extended to 4 bytes, as a correct sender would; the differential suite only compares count 1.",
    },
    Quirk {
        id: "U3-v20-value-type-as-int",
        kind: QuirkKind::Legacy,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v20",
        openpmix: "INFO/PDATA value types are packed by the INT packer from a 2-byte field, so the upper half of the be32 is struct padding.",
        chosen: "Write zero upper bytes; on read keep the low 16 bits.",
    },
    Quirk {
        id: "U4-regex-plain-string",
        kind: QuirkKind::UpstreamBug,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v4 ... v61 (REGEX 49)",
        openpmix: "A REGEX that no preg module claims (`raw:`, `blob`, and up to 6.1 `pmix`: quirk R11) falls back to a plain STRING packed through the library's own default module: in a non-described buffer that crashes the packer; in a described buffer the default module refuses the buffer kind with PMIX_ERR_PACK_MISMATCH (-22), after the call's tags (4.2.2 ... 7.0.0rc1 alike).",
        chosen: "We carry REGEX as the framed bytes. Encoding bytes that are not a framed regex is refused: -22 in a described buffer, as the library does; -27 (PMIX_ERR_BAD_PARAM) in a non-described one, where the library crashes. Decoding unframed bytes follows the unpacker's fallback, a whole unpack of one STRING through the receiver's own default module and buffer kind (non-described): -20 in a described buffer, else that unpack's error; if it succeeds we report -20 (a plain-string regex has no representation here).",
    },
    Quirk {
        id: "U6-empty-int-record-at-end",
        kind: QuirkKind::SelfInconsistent,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v4 ... v61",
        openpmix: "A record of count 0 (or negative) of an integer type at the very end of the buffer fails with -50: the flex-integer unpacker checks for an empty buffer before looking at the count, and so do the types whose unpacker hands it the call (STATUS, PROC_RANK, DATA_TYPE, INFO_DIRECTIVES, IOF_CHANNEL, DEVTYPE, LOCTYPE, STOR_*).",
        chosen: "Reproduced on decode.",
    },
    Quirk {
        id: "U7-value-of-container",
        kind: QuirkKind::ReleaseDifference,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v21 ... v61",
        openpmix: "A VALUE whose type is VALUE/INFO/PDATA/APP/KVAL/BUFFER is refused with -27 by master, packing and unpacking; 4.2.2 packs it, and unpacking it writes the nested struct over the value's union (heap overflow).",
        chosen: "Encode like each release (4.2.x packs, master refuses with -27); decoding refuses with -27 in both profiles rather than reproduce the overflow.",
    },
    Quirk {
        id: "L4-v12-1x-ranks",
        kind: QuirkKind::Legacy,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v12 (PROC, and every struct's PROC field)",
        openpmix: "v12 reads a PROC's rank 2147483646 (INT32_MAX - 1) as PMIX_RANK_WILDCARD and 2147483647 (INT32_MAX) as PMIX_RANK_UNDEF, PMIx 1.x's numbers for them, but packs every rank unchanged: a v2+ rank of either value comes back as WILDCARD or UNDEF, and today's WILDCARD and UNDEF go out as 0xfffffffe and 0xffffffff.",
        chosen: "Reproduced both ways (the rank is written unchanged and read through the 1.x map). `DecodeOptions::as_written` reads the rank unchanged, as the packer wrote it.",
    },
    Quirk {
        id: "L1-v12-type-numbers",
        kind: QuirkKind::Legacy,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v12",
        openpmix: "Tags are be32 in PMIx 1.x numbering (STATUS and PROC_RANK -> INT, DATA_ARRAY/INFO_ARRAY -> 22, 23..30 -> +1); the map is lossy: a described PROC reads back as INFO_ARRAY. A VALUE of DATA_ARRAY-of-INFO goes out as 22; the unpacker turns 22 (and 44, passed through) into a value of type INFO_ARRAY with the info array written over a data array's `array` member.",
        chosen: "Reproduced both ways; a VALUE of type 22 or 44 decodes to the DATA_ARRAY of INFO a v2+ packer meant (the differential fuzz target compares it as INFO_ARRAY, what a C reader sees).",
    },
    Quirk {
        id: "D4-v20-darray-command-overread",
        kind: QuirkKind::UpstreamBug,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v20",
        openpmix: "Inside a DATA_ARRAY, v20 packs COMMAND (1-byte pmix_cmd_t) with its UINT32 packer: it reads 4*n bytes from an n-byte array, so neighbouring bytes and memory past the array reach the wire.",
        chosen: "One be32 per command value (what v20 writes for a top-level COMMAND); not comparable with libpmix.",
    },
    Quirk {
        id: "D5-v20-command-overread",
        kind: QuirkKind::UpstreamBug,
        releases: &["4.2"],
        components: "v20",
        openpmix: "A 4.2.2 client speaking v20 to its server packs the one-byte pmix_cmd_t of every request with the UINT32 packer: it reads three bytes beyond the command, so the first three bytes on the wire are whatever follows it in memory and vary from run to run (`00 00 01 03` for a fence, `7f 24 00 11` for an allocation request, recorded by pmix-server). The command is the last (low) byte. Observed with 4.2.2; the v20 clients of 5.0.7 and 6.0.0 were not checked for it.",
        chosen: "Decode a v20 COMMAND from the low byte of its be32 and ignore the other three (what the C server's UINT32 unpacker and cast do); encode zeros there. Requests with garbage bytes cannot be reproduced by any encoder, so their recordings are judged by decode only.",
    },
    Quirk {
        id: "C1-topo-null-crash",
        kind: QuirkKind::UpstreamBug,
        releases: &["4.2", "5.0", "6.0", "6.1"],
        components: "v4 v41 (4.2.x, 5.0.x); v4 ... v61 (6.0, 6.1); fixed in 7.0",
        openpmix: "Packing a TOPO whose topology is NULL (alone or inside a DATA_ARRAY) dereferences it and crashes (SIGSEGV) in 4.2.x, 5.0.x, 6.0 and 6.1; 7.0 packs it as a NULL string.",
        chosen: "Pack the NULL topology as a NULL string (length 0), as 7.0 does, which the unpacker reads back as NULL.",
    },
    Quirk {
        id: "C2-v20-value-query-crash",
        kind: QuirkKind::UpstreamBug,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v20",
        openpmix: "Unpacking a VALUE of QUERY crashes (SIGSEGV): the unpacker writes the query through the value's uninitialised pointer.",
        chosen: "Decode the QUERY the packer wrote.",
    },
    Quirk {
        id: "L2-v20-info-array-base-packers",
        kind: QuirkKind::SelfInconsistent,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v20",
        openpmix: "v20's INFO_ARRAY packer uses the base (v21+) SIZE and INFO packers: the size has its always-tag but no described-mode tag, and each INFO has flags and a 2-byte value type. Its unpacker uses v20's own SIZE unpacker (expects the described-mode tag too) and reads the elements as VALUEs (U11).",
        chosen: "Encode like the packer, decode like the unpacker.",
    },
    Quirk {
        id: "D2-int-tag-per-call",
        kind: QuirkKind::Legacy,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "all (INT/UINT/SIZE in v12...v3; PID everywhere; v12 also STATUS, PROC_RANK, PERSIST, SCOPE, DATA_RANGE)",
        openpmix: "The self-describing integer packers write their fixed-width type tag once per pack_buffer call, then all the values: once per top-level pack call (even for count 0) and once per DATA_ARRAY payload, not once per element. The unpacker reads the tag once and converts every value (UNPACK_SIZE_MISMATCH). In a v12/v20 described buffer, only a tag naming the native width (INT32 for INT, UINT64 for SIZE, ...) is followed by the described-mode tag of unpack_buffer; any other integer tag goes to that type's unpacker directly, with no second tag.",
        chosen: "Reproduced both ways: one tag per array; a value inside a struct is its own one-element call; the second described tag only on the native-width path.",
    },
    Quirk {
        id: "D3-v12-datatype-as-int32",
        kind: QuirkKind::UpstreamBug,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v12",
        openpmix: "v12 packs DATA_TYPE (2-byte pmix_data_type_t) with its INT32 packer: it reads 4*n bytes from a 2*n-byte array (over-read: bytes of neighbouring values and memory past the array reach the wire) and unpacks 4*n bytes into 2*n (overflow).",
        chosen: "One be32 per value holding the 16-bit type, i.e. what a 1.x peer with 32-bit types sends; we read the low 16 bits. Not comparable with libpmix for arrays of more than one value.",
    },
    Quirk {
        id: "U8-darray-element-storage",
        kind: QuirkKind::ReleaseDifference,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v20 (every release); v21 ... v61 by release",
        openpmix: "Unpacking a DATA_ARRAY allocates the element storage from a fixed list of types before reading the elements. v20's list is short (no VALUE, BUFFER, KVAL, MODEX, DATA_ARRAY, INFO_ARRAY ...): -47. 4.2.x/5.0.x's PMIX_DATA_ARRAY_CONSTRUCT leaves other types (DATA_ARRAY, BUFFER, KVAL, MODEX, INFO_ARRAY, the enums added in v4 ...) NULL and the unpacker returns -32, although the packer wrote them happily; 6.0 uses the same list plus DEVICE and RESOURCE_UNIT, 6.1 that list without the STATS types. 7.0 allocates every type it knows but MODEX, INFO_ARRAY and the STATS types (-32, also for ids above 75), and only then asks the component, which refuses a type it does not register with -16 (up to 6.1 and in master that is -32). Master allocates every registered type.",
        chosen: "Reproduced per family and release profile: V20_DARRAY_ELEMENT_TYPES, DARRAY_CONSTRUCT_4_2 with Profile::darray_constructs_also / darray_constructs_not, Profile::darray_unpack_refuses and Profile::darray_unknown_element.",
    },
    Quirk {
        id: "U5-negative-count",
        kind: QuirkKind::Legacy,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "all",
        openpmix: "unpack passes a negative top-level count straight to the type's unpacker: the fixed-size unpackers check `count * size` bytes (a huge unsigned number) and return -50; the others loop zero times and succeed with no values. The native-size ones (SIZE, PID, INT, UINT and v12's enums) read their integer tag first: a non-integer tag is -46.",
        chosen: "Reproduced per family (see `negative_count_past_end`): -50 for those types, an empty call for the rest.",
    },
    Quirk {
        id: "U10-proc-stats-peak-vsize",
        kind: QuirkKind::SelfInconsistent,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v41 (4.2.x)",
        openpmix: "4.2.x's PROC_STATS unpacker reads a `peak_vsize` FLOAT after `rss` that its packer never writes, so a PROC_STATS it packed does not unpack (usually -50 or a misaligned read).",
        chosen: "Release::OpenPmix4_2 decodes like the unpacker (the extra FLOAT is read and dropped) and encodes like the packer; master has no STATS types.",
    },
    Quirk {
        id: "U11-info-array-reads-values",
        kind: QuirkKind::SelfInconsistent,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v12 v20 v21 v3",
        openpmix: "The INFO_ARRAY unpacker of v12, v20, v21 and v3 reads its elements with the VALUE unpacker (type + payload) although the packer wrote INFO records (key, flags, type, payload), in every release. v12 fails on its own arrays (-46 for typical keys). v20, v21 and v3 usually succeed: the first VALUE type read is the key length's leading zero bytes (UNDEF), each VALUE struct is written over an INFO slot's key, and the receiver gets INFOs whose key is the type's bytes up to the first NUL (\"\" for UNDEF), flags 0 and no value; what the reads did not reach stays unread (18 bytes of a one-element array of {\"k\", UINT64}).",
        chosen: "Decode like the unpacker: the elements are read as VALUEs, C's status is reported, and on success the INFOs the receiver holds (key = the VALUE type's little-endian bytes up to the first NUL, flags 0, UNDEF), leaving the rest unread, as libpmix 4.2.2, 6.1.0 and 7.0.0rc1 do. Encode like the packer. `DecodeOptions::as_written` reads the INFO records.",
    },
    Quirk {
        id: "U12-v20-persist-value-as-proc",
        kind: QuirkKind::SelfInconsistent,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v20",
        openpmix: "v20's VALUE unpacker reads a PERSIST value with the PROC unpacker (a copy-paste slip) into the value's pointer field, while its packer wrote one PERSIST byte: -50 in a non-described buffer, -22 in a described one.",
        chosen: "Decode like the unpacker (read a PROC, report C's status; if that garbage read succeeds, -20). Encode like the packer.",
    },
    Quirk {
        id: "U13-v12-app-info-end-flag",
        kind: QuirkKind::Legacy,
        releases: &["4.2", "5.0", "6.0", "6.1"],
        components: "v12",
        openpmix: "v12 INFO records carry no flags. Unpacking an APP allocates its info array with PMIX_INFO_CREATE, which in 4.2.x marks the last element PMIX_INFO_ARRAY_END (0x2); nothing overwrites it, so the receiver's last APP info has flags 2. From 5.0 on (5.0.7, 6.0, 6.1) the receiver sees 0.",
        chosen: "Reproduced per release (Profile::info_create_marks_end): the last info of a decoded v12 APP has flags INFO_ARRAY_END in the 4.2 profile, 0 in the others. This is the one byte-level difference between 4.2.2 and 5.0.7, hence the separate 5.0 profile.",
    },
    Quirk {
        id: "U14-v12-uninitialized-type",
        kind: QuirkKind::UpstreamBug,
        releases: &["4.2", "5.0", "6.0", "6.1"],
        components: "v12",
        openpmix: "pmix12_bfrop_get_data_type tests an uninitialized `int v1type` when the buffer ends inside a type tag: the status is -16 or -50 depending on stack contents. In the 6.0 and 6.1 builds it changes from one process to the next for a described BUFFER, MODEX or INFO_ARRAY cut inside its SIZE's tag (seen with ASLR off and a pid namespace too).",
        chosen: "-50 (UNPACK_READ_PAST_END_OF_BUFFER), the status for a short read. Vectors where libpmix said -16 record ours and are flagged UpstreamBug; the 6.0/6.1 inputs whose answer changes between runs are not recorded (the generator's `not included` note counts them).",
    },
    // Found by the differential fuzz target (fuzz/FINDINGS.md), 4.2.2 vs pmix-codec.
    Quirk {
        id: "U15-proc-nspace-null",
        kind: QuirkKind::SelfInconsistent,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v41 v51 v61",
        openpmix: "PROC_NSPACE packs its char array as a STRING, never NULL; the unpacker loads a NULL string with PMIX_LOAD_NSPACE, which zeroes the array and copies nothing: an empty namespace, success. (PROC's namespace, by contrast, refuses NULL with PMIX_ERROR.)",
        chosen: "Reproduced: a NULL PROC_NSPACE decodes to an empty namespace.",
    },
    Quirk {
        id: "U16-cpuset-text-reparsed",
        kind: QuirkKind::SelfInconsistent,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v4 v41 v51 v61",
        openpmix: "PROC_CPUSET travels as hwloc's bitmap list text; the unpacker parses it with hwloc_bitmap_list_sscanf, so a C reader sees a bitmap: text that is not hwloc's canonical list (`3,1-2`, `0,1`, garbage) comes back as the canonical form of whatever hwloc made of it.",
        chosen: "The text is kept verbatim (no hwloc in the codec; the bytes round-trip exactly). The differential fuzz target compares cpusets only where the text is canonical.",
    },
    Quirk {
        id: "L3-v12-negative-type",
        kind: QuirkKind::Legacy,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v12",
        openpmix: "v12 reads a type tag as an int32 and refuses values above 65535 (-16), but a negative one passes the check and is truncated to its low 16 bits, aliasing a real type.",
        chosen: "Refused like any out-of-range tag (-16): no packer writes a negative tag, and the alias would let garbage pass as a valid record.",
    },
    Quirk {
        id: "C3-regex-unterminated-overread",
        kind: QuirkKind::UpstreamBug,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v4 ... v61 (preg `raw:`, 4.2.x `pmix`)",
        openpmix: "Up to 6.1 the preg modules unpack a framed REGEX with strdup/strlen from the read pointer without a bound: without a NUL before the end of the buffer they read past it (heap over-read) and usually succeed with garbage. 7.0's preg modules claim a regex only when its NUL lies inside the buffer; an unterminated one takes the plain-string fallback of quirk U4 (-19 or the STRING unpack's error in a non-described buffer, -20 in a described one).",
        chosen: "-50 (UNPACK_READ_PAST_END_OF_BUFFER) when no NUL ends the regex inside the input, up to 6.1; in 7.0 (and master, from its source) the fallback, as the library does (Profile::preg, crate::preg).",
    },
    Quirk {
        id: "C4-v20-size-as-int32",
        kind: QuirkKind::UpstreamBug,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v20 (BYTE_OBJECT, BUFFER); v21 ... v61 (the base BUFFER and BYTE_OBJECT unpackers, 4.2.2 and master)",
        openpmix: "The BYTE_OBJECT and BUFFER unpackers read a 64-bit size, malloc it, then pass it to the byte unpacker as an int32 count: a size of 2^32 + k reads only k bytes (after a multi-GiB malloc), and one whose low 32 bits are negative reads none. Both succeed when the malloc does (the differential fuzz target saw it for v20 and for v3's BUFFER).",
        chosen: "-50 (UNPACK_READ_PAST_END_OF_BUFFER) whenever the size exceeds the bytes that remain.",
    },
    Quirk {
        id: "U17-app-argv-null",
        kind: QuirkKind::SelfInconsistent,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "all (4.2.2 and master)",
        openpmix: "An APP's argv and env are NULL-terminated char** lists: the packer counts them with pmix_argv_count, so it never writes a NULL element, but the wire can carry one (a string of length 0) and the unpacker then fails the whole call with PMIX_ERROR (-1). (QUERY keys and REGATTR descriptions are unpacked into their array as they come: a NULL there just ends the list for a C reader.)",
        chosen: "Decoding refuses a NULL argv/env element with -1 (as written, it is kept); encoding one is -27 (BAD_PARAM), since no C program can hand it to the packer.",
    },
    Quirk {
        id: "C5-node-stats-nested-arrays",
        kind: QuirkKind::UpstreamBug,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v41 (4.2.x, 5.0.x; master has no stats types)",
        openpmix: "NODE_STATS packs and unpacks its disk and net stats arrays at the address of the struct's `diskstats`/`netstats` pointer field instead of at the array: pack writes the struct's own later fields (pointer bits) as DISK_STATS/NET_STATS records, unpack writes the records over those fields and past the end of the struct (heap overflow; the differential fuzz target saw libpmix 4.2.2 return an empty node name and zeroed counters).",
        chosen: "The records are written and read as the fields' types say (the count, then that many DISK_STATS/NET_STATS records, like every other nested array); not comparable with libpmix, which cannot produce or read these bytes.",
    },
    Quirk {
        id: "U18-topo-xml-parsed",
        kind: QuirkKind::SelfInconsistent,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v4 v41 v51 v61 (libpmix built with hwloc)",
        openpmix: "A TOPO travels as hwloc's XML export; the unpacker loads it with hwloc (hwloc_topology_set_xmlbuffer + load), so text that is not a topology hwloc can load fails the call with PMIX_ERROR (-1), and a C reader never sees the text itself.",
        chosen: "The text is kept verbatim and not parsed (no hwloc in the codec): any text decodes. The differential fuzz target logs these as `we-accept` classes.",
    },
    Quirk {
        id: "R8-value-compressed-string-unpack",
        kind: QuirkKind::SelfInconsistent,
        releases: &["7.0"],
        components: "v21 v3 v4 v41 v51 v61",
        openpmix: "7.0.0rc1 packs a VALUE of COMPRESSED_STRING (type 42, then the sized bytes) but its VALUE unpacker has no case for it and returns PMIX_ERR_UNPACK_FAILURE (-20); a DATA_ARRAY or INFO holding such a value fails the same way. 4.2.x ... 6.1 read it.",
        chosen: "Encode like the packer; decode like the unpacker in the 7.0 profile (Profile::value_unpack_refuses), -20; `DecodeOptions::as_written` reads the value.",
    },
    Quirk {
        id: "C6-darray-after-undef",
        kind: QuirkKind::UpstreamBug,
        releases: &["6.1"],
        components: "v21 v3 v4 v41 v51 v61",
        openpmix: "6.1.0's DATA_ARRAY unpacker, once it has read a typeless (UNDEF) array in a call, returns every later array of the call as an empty UNDEF array without reading its bytes (the packer wrote them in full); the call succeeds with garbage and leaves the bytes unread. 6.0 and 4.2.x read them.",
        chosen: "Read what the packer wrote (as 6.0 does); the differential suite lists these cases as upstream garbage and checks that 6.1 still misreads them.",
    },
    Quirk {
        id: "R9-taint-int-limit",
        kind: QuirkKind::ReleaseDifference,
        releases: &["6.1"],
        components: "v12 v20",
        openpmix: "6.1.0 added a guard (PMIX_TAINT_INT_LIMIT, INT_MAX-2) to the legacy unpackers: a v12 string length, a v12/v20 APP env count or a v20 QUERY key count above it is refused with PMIX_ERR_BAD_PARAM (-27) before anything else is read. Up to 6.0 such a length reads past the end (-50); 7.0 has no v12/v20.",
        chosen: "Selectable by Release (Profile::taint_limit_in): -27 in the 6.1 profile.",
    },
    Quirk {
        id: "R10-pointer-valued-types",
        kind: QuirkKind::ReleaseDifference,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v21 ... v61",
        openpmix: "pack_val refuses a VALUE (or INFO) whose type the component does not register with -16 when the type is in its list of pointer-valued structs, else with -1. The list's release-dependent part: the STATS types in 4.2.x/5.0.x; the STATS types, DEVICE and RESOURCE_UNIT in 6.0; DEVICE, RESOURCE_UNIT and NODE_PID in 6.1; REGEX2 too in 7.0 and master.",
        chosen: "Reproduced (Profile::pointer_values, quirks::is_pointer_value_type).",
    },
    Quirk {
        id: "R11-regex-preg-modules",
        kind: QuirkKind::ReleaseDifference,
        releases: &["4.2", "5.0", "6.0", "6.1", "7.0", "master"],
        components: "v4 ... v61 (REGEX 49)",
        openpmix: "Which REGEX forms a release packs and reads, and how many bytes it takes of them, depends on its preg modules. 4.2.x ... 6.1 have the native module, which claims any regex whose first four bytes are `pmix` (`pmix[...]`, also `pmixfoo`), up to its NUL; 7.0 and master do not (a `pmix` regex takes the plain-string fallback, quirk U4). The compress module's `blob:` NUL `component=zlib:` NUL `size=N:` NUL + N bytes: 4.2.x ... 6.0 compute its length with strtoul over the text `size=N:` (0), so they pack and read the header plus 5 bytes whatever N is (a longer payload is cut, a shorter one takes the next bytes along); 6.1 takes N bytes but checks nothing behind `blob` and the label; 7.0 and master check the whole header and refuse a malformed one with -27 (PMIX_ERR_BAD_PARAM). Only N = 5 means the same everywhere.",
        chosen: "Selectable by Release (Profile::regex_pmix_framing, Profile::preg; the rules in crate::preg): each profile packs and reads what its release's modules claim, byte for byte.",
    },
    Quirk {
        id: "U19-v20-value-info-array",
        kind: QuirkKind::SelfInconsistent,
        releases: &["4.2", "5.0", "6.0", "6.1", "master"],
        components: "v20",
        openpmix: "v20's VALUE packer refuses a VALUE of the deprecated INFO_ARRAY type (-1), but its VALUE unpacker reads one, with the same code in every release that has v20: the described-mode tag, then the INFO_ARRAY unpacker (the SIZE, then the elements as VALUEs, quirk U11) writing its array structure over the `array` member of a data array it allocates (8 bytes past that allocation). A peer's bytes of such a VALUE therefore unpack, although no v20 library ever writes them.",
        chosen: "Decode like the unpacker: a v20 VALUE of INFO_ARRAY reads the INFO_ARRAY and yields Value::InfoArray with the INFOs the receiver holds (quirk U11); the depth cap of INFO_ARRAY applies (quirk R6). Encode like the packer (refused, -1). `DecodeOptions::as_written` refuses it too (-1). The families are code, the releases data: all of 4.2.2 ... 6.1.0 and master read it the same way, so no profile flag selects it.",
    },
];

/// Whether a DATA_ARRAY call's values hold a typeless (UNDEF) array before their last one:
/// where 7.0 and master drop the rest of the call and 6.1 misreads it (quirks R2, C6).
pub fn typeless_array_before_others(vals: &[crate::Value]) -> bool {
    vals.len() > 1
        && vals[..vals.len() - 1]
            .iter()
            .any(|v| matches!(v, crate::Value::DataArray(d) if d.ty == DataType::UNDEF))
}

/// Whether OpenPMIx's packer reads memory past the values of `items` in `fam`, so that
/// its bytes hold what no encoder can reproduce: v20 packs a DATA_ARRAY of COMMAND, at any
/// depth, with its UINT32 packer (quirk D4).
pub fn packer_reads_past_values(fam: crate::Family, items: &[crate::Item]) -> bool {
    fn overreads(v: &crate::Value) -> bool {
        use crate::Value as V;
        match v {
            V::DataArray(d) => d.ty == DataType::COMMAND || d.values.iter().any(overreads),
            V::Value(inner) => overreads(inner),
            V::Info(i) => overreads(&i.value),
            V::Pdata(p) => overreads(&p.value),
            V::Kval(k) => overreads(&k.value),
            V::InfoArray(infos) => infos.iter().any(|i| overreads(&i.value)),
            V::App(a) => a.info.iter().any(|i| overreads(&i.value)),
            V::Query(q) => q.qualifiers.iter().any(|i| overreads(&i.value)),
            _ => false,
        }
    }
    fam == crate::Family::Legacy20 && items.iter().flat_map(|i| &i.values).any(overreads)
}

/// PMIX_INFO_ARRAY_END: the flag PMIX_INFO_CREATE puts on an array's last element.
pub const INFO_ARRAY_END: u32 = 0x0002;

/// Whether a negative top-level count of `ty` fails with -50 in `fam` (quirk U5): the
/// unpackers that check `count * size` bytes before reading. Measured with libpmix 4.2.2.
/// (Only for types the component registers: an unknown type is refused before.)
pub fn negative_count_past_end(fam: Family, ty: DataType) -> bool {
    use DataType as T;
    let byte_sized = matches!(
        ty,
        T::BOOL
            | T::BYTE
            | T::INT8
            | T::UINT8
            | T::PERSIST
            | T::SCOPE
            | T::DATA_RANGE
            | T::COMMAND
            | T::ALLOC_DIRECTIVE
            | T::JOB_STATE
            | T::LINK_STATE
            | T::PROC_STATE
            | T::RESBLOCK_DIRECTIVE
            | T::ALLOC_INHERIT
    );
    let fixed = byte_sized
        || matches!(
            ty,
            T::INT16
                | T::UINT16
                | T::INT32
                | T::UINT32
                | T::INT64
                | T::UINT64
                | T::INT
                | T::UINT
                | T::SIZE
                | T::PID
                | T::STATUS
                | T::DATA_TYPE
                | T::PROC_RANK
                | T::IOF_CHANNEL
        );
    match fam {
        // Flex integers loop zero times; only the byte-sized unpackers check the size.
        Family::Modern => byte_sized,
        Family::Converged => fixed || ty == T::INFO_DIRECTIVES,
        Family::Legacy20 => {
            fixed || matches!(ty, T::FLOAT | T::DOUBLE | T::TIMEVAL | T::INFO_DIRECTIVES)
        }
        // v12 registers PROC_STATE without an unpacker: its refusal (-47) comes first.
        Family::Legacy12 => {
            (fixed || matches!(ty, T::FLOAT | T::DOUBLE | T::TIMEVAL | T::TIME))
                && ty != T::PROC_STATE
        }
    }
}

/// DATA_ARRAY element types v20's unpacker can allocate (quirk U8).
pub const V20_DARRAY_ELEMENT_TYPES: &[DataType] = &[
    DataType::BOOL,
    DataType::BYTE,
    DataType::INT8,
    DataType::UINT8,
    DataType::INT16,
    DataType::UINT16,
    DataType::INT32,
    DataType::UINT32,
    DataType::INT64,
    DataType::UINT64,
    DataType::STRING,
    DataType::SIZE,
    DataType::PID,
    DataType::INT,
    DataType::UINT,
    DataType::FLOAT,
    DataType::DOUBLE,
    DataType::TIMEVAL,
    DataType::TIME,
    DataType::STATUS,
    DataType::INFO,
    DataType::PROC,
    DataType::BYTE_OBJECT,
    DataType::COMPRESSED_STRING,
    DataType::PERSIST,
    DataType::SCOPE,
    DataType::DATA_RANGE,
    DataType::PROC_STATE,
    DataType::PROC_INFO,
    DataType::QUERY,
];

/// DATA_ARRAY element types 4.2.x's `PMIX_DATA_ARRAY_CONSTRUCT` allocates (quirk U8).
pub const DARRAY_CONSTRUCT_4_2: &[DataType] = &[
    DataType::INFO,
    DataType::PROC,
    DataType::PROC_INFO,
    DataType::ENVAR,
    DataType::VALUE,
    DataType::PDATA,
    DataType::QUERY,
    DataType::APP,
    DataType::BYTE_OBJECT,
    DataType::COMPRESSED_STRING,
    DataType::ALLOC_DIRECTIVE,
    DataType::PROC_STATE,
    DataType::PERSIST,
    DataType::SCOPE,
    DataType::DATA_RANGE,
    DataType::BYTE,
    DataType::INT8,
    DataType::UINT8,
    DataType::POINTER,
    DataType::STRING,
    DataType::SIZE,
    DataType::PID,
    DataType::INT,
    DataType::UINT,
    DataType::STATUS,
    DataType::IOF_CHANNEL,
    DataType::DATA_TYPE,
    DataType::INT16,
    DataType::UINT16,
    DataType::PROC_RANK,
    DataType::INFO_DIRECTIVES,
    DataType::INT32,
    DataType::UINT32,
    DataType::INT64,
    DataType::UINT64,
    DataType::FLOAT,
    DataType::DOUBLE,
    DataType::TIMEVAL,
    DataType::TIME,
    DataType::REGATTR,
    DataType::BOOL,
    DataType::COORD,
    DataType::LINK_STATE,
    DataType::ENDPOINT,
    DataType::PROC_NSPACE,
    DataType::PROC_STATS,
    DataType::DISK_STATS,
    DataType::NET_STATS,
    DataType::NODE_STATS,
    DataType::DEVICE_DIST,
    DataType::GEOMETRY,
    DataType::PROC_CPUSET,
];

/// The fixed-width type a self-describing integer packer tags `ty` with in `fam`, if `ty`'s
/// packer is one of them (quirk D2).
pub fn self_tagged_int(fam: Family, ty: DataType) -> Option<DataType> {
    match (fam, ty) {
        (_, DataType::PID) => Some(DataType::UINT32),
        (Family::Modern, _) => None,
        (_, DataType::INT | DataType::UINT) => Some(DataType::INT32),
        (_, DataType::SIZE) => Some(DataType::UINT64),
        (
            Family::Legacy12,
            DataType::STATUS
            | DataType::PROC_RANK
            | DataType::PERSIST
            | DataType::SCOPE
            | DataType::DATA_RANGE,
        ) => Some(DataType::INT32),
        _ => None,
    }
}

/// The type number v12 writes for a v2+ type (PMIx 1.x numbering).
pub fn v12_wire_type(t: u16) -> u16 {
    match t {
        20 | 40 => 6,
        39 | 44 => 22,
        23..=30 => t + 1,
        _ => t,
    }
}

/// The v2+ type v12 reads for a 1.x type number.
pub fn v12_read_type(t: u16) -> DataType {
    match t {
        20 => DataType::UNDEF,
        22 => DataType::INFO_ARRAY,
        23..=31 => DataType(t - 1),
        _ => DataType(t),
    }
}

/// What v12's `pack_buffer` declares in a described buffer for a top-level type.
pub fn v12_top_level_type(t: DataType) -> DataType {
    match t {
        DataType::COMMAND => DataType::UINT32,
        DataType::SCOPE | DataType::DATA_RANGE => DataType::UINT,
        DataType::PROC_RANK | DataType::PERSIST | DataType::STATUS => DataType::INT,
        _ => t,
    }
}

/// Types a v12 VALUE can carry.
pub const V12_VALUE_TYPES: &[DataType] = &[
    DataType::BOOL,
    DataType::BYTE,
    DataType::STRING,
    DataType::SIZE,
    DataType::PID,
    DataType::INT,
    DataType::INT8,
    DataType::INT16,
    DataType::INT32,
    DataType::INT64,
    DataType::UINT,
    DataType::UINT8,
    DataType::UINT16,
    DataType::UINT32,
    DataType::UINT64,
    DataType::FLOAT,
    DataType::DOUBLE,
    DataType::TIMEVAL,
    DataType::BYTE_OBJECT,
    DataType::DATA_ARRAY,
    DataType::PROC_RANK,
];

/// Types a v20 VALUE can carry.
pub const V20_VALUE_TYPES: &[DataType] = &[
    DataType::BOOL,
    DataType::BYTE,
    DataType::STRING,
    DataType::SIZE,
    DataType::PID,
    DataType::INT,
    DataType::INT8,
    DataType::INT16,
    DataType::INT32,
    DataType::INT64,
    DataType::UINT,
    DataType::UINT8,
    DataType::UINT16,
    DataType::UINT32,
    DataType::UINT64,
    DataType::FLOAT,
    DataType::DOUBLE,
    DataType::TIMEVAL,
    DataType::TIME,
    DataType::STATUS,
    DataType::PROC,
    DataType::PROC_RANK,
    DataType::BYTE_OBJECT,
    DataType::COMPRESSED_STRING,
    DataType::PERSIST,
    DataType::POINTER,
    DataType::SCOPE,
    DataType::DATA_RANGE,
    DataType::PROC_STATE,
    DataType::PROC_INFO,
    DataType::DATA_ARRAY,
    DataType::QUERY,
];

/// Types a VALUE may not carry in the base driver (master refuses them with -27).
pub const VALUE_REFUSED_TYPES: &[DataType] = &[
    DataType::VALUE,
    DataType::INFO,
    DataType::PDATA,
    DataType::APP,
    DataType::KVAL,
    DataType::BUFFER,
];

/// Types a `pmix_value_t` holds by pointer: the base packer reports an unregistered one
/// as -16 rather than -1.
pub fn is_pointer_value_type(t: DataType, rel: crate::Release) -> bool {
    let common = matches!(
        t,
        DataType::PROC
            | DataType::PROC_NSPACE
            | DataType::PROC_INFO
            | DataType::DATA_ARRAY
            | DataType::COORD
            | DataType::TOPO
            | DataType::PROC_CPUSET
            | DataType::GEOMETRY
            | DataType::DEVICE_DIST
            | DataType::ENDPOINT
            | DataType::REGATTR
    );
    // 4.2.x ... 6.0's pack_val lists the STATS types; 6.1 the newer structs it knows,
    // 7.0 and master REGEX2 too.
    common || rel.profile().pointer_values.contains(&t)
}

/// Types whose modern unpacker is the flex-integer routine, directly or through a wrapper
/// that hands it the whole call (STATUS -> INT32, PROC_RANK -> UINT32, ...); that routine
/// checks for an empty buffer before looking at the count (quirk U6).
pub fn modern_int_entry(ty: DataType) -> bool {
    use DataType as T;
    matches!(
        ty,
        T::INT16
            | T::INT32
            | T::INT64
            | T::UINT16
            | T::UINT32
            | T::UINT64
            | T::INT
            | T::UINT
            | T::SIZE
            | T::STATUS
            | T::PROC_RANK
            | T::DATA_TYPE
            | T::INFO_DIRECTIVES
            | T::IOF_CHANNEL
            | T::DEVTYPE
            | T::LOCTYPE
            | T::STOR_MEDIUM
            | T::STOR_ACCESS
            | T::STOR_PERSIST
            | T::STOR_ACCESS_TYPE
    )
}

/// Types whose modern unpacker reads a whole array with one integer unpack call, so that an
/// empty region after the first value is 4.2.x's over-read (quirk R1): the flex-integer
/// types, the types packed with them, and PID (which reads its tag first).
pub fn modern_int_array(ty: DataType) -> bool {
    modern_int_entry(ty) || ty == DataType::PID
}
