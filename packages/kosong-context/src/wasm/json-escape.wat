;; A JavaScript string (UTF-16) to the UTF-8 bytes of its JSON form, with
;; WebAssembly SIMD.
;;
;; Compiled by scripts/build-wasm.ts (wabt) into src/json-escape-wasm.ts; run
;; `pnpm run build:wasm` after editing this file (a test checks that the
;; embedded bytes are this file compiled).
;;
;; escape(src, units, dst) -> end
;;
;;   Reads `units` UTF-16 code units (little-endian) at src and writes at dst
;;   the inside of their JSON string (no quotes) as UTF-8, byte for byte what
;;   JSON.stringify writes:
;;     '"' -> \"   '\' -> \\   U+0008 U+0009 U+000A U+000C U+000D -> \b \t \n \f \r
;;     any other unit below U+0020 -> \u00xx (lowercase hex)
;;     a surrogate pair -> the 4 UTF-8 bytes of its code point
;;     a lone surrogate -> \udxxx (lowercase hex)
;;     any other unit -> its UTF-8 bytes (DEL and '/' included, unescaped)
;;   Returns the address just after the output, which is at most 6 bytes per
;;   unit.
;;
;;   Contract (the caller lays out the memory, which is imported):
;;   - the output [dst, end + 32) must not overlap the input [src, src + 2 * units);
;;   - the 32 bytes after the input are read (and ignored) and the 32 bytes
;;     after the output may be overwritten with garbage: both must lie inside
;;     the memory, and the output's slack holds nothing of value;
;;   - the input ends where the caller says: a high surrogate in the last
;;     unit is lone (callers that cut a string into slices must not cut
;;     between the two units of a pair).
;;
;; Each step takes the next 16 units:
;; - all printable ASCII (narrowed to 16 bytes with unsigned saturation: a
;;   unit from U+0080 becomes 0x00 or a byte from 0x80, so it is never taken
;;   for printable ASCII): the bytes are stored whole and both pointers
;;   advance by a constant, so consecutive clean blocks do not wait on each
;;   other's data;
;; - else, the first 8 units all taking 3 UTF-8 bytes (U+0800..U+FFFF, no
;;   surrogates: CJK and most other scripts of Asia): 24 bytes by shuffles;
;; - else the clean ASCII prefix is already in place: both pointers advance
;;   past it, and the unit there is escaped, or begins a run of 3-byte units
;;   (by shuffles), or is encoded alone (2-byte units, surrogates).
;; The last, partial block goes the same way, its units past the end masked
;; off (a sentinel bit at the input's end stops the prefix there).
(module
  (import "env" "memory" (memory 1))

  ;; How many of the 8 units, from the first, take 3 UTF-8 bytes (U+0800..U+FFFF but surrogates): 0 to 8.
  (func $threeByteRun (param $units v128) (result i32)
    (i32.ctz
      (i32.xor
        (i32.const 0x1ff)
        (i16x8.bitmask
          (v128.andnot
            (i16x8.ge_u (local.get $units) (v128.const i16x8 0x800 0x800 0x800 0x800 0x800 0x800 0x800 0x800))
            (i16x8.eq
              (v128.and (local.get $units) (v128.const i16x8 0xf800 0xf800 0xf800 0xf800 0xf800 0xf800 0xf800 0xf800))
              (v128.const i16x8 0xd800 0xd800 0xd800 0xd800 0xd800 0xd800 0xd800 0xd800)))))))

  ;; A lowercase hex digit.
  (func $hex (param $digit i32) (result i32)
    (i32.add (local.get $digit) (select (i32.const 87) (i32.const 48) (i32.ge_u (local.get $digit) (i32.const 10)))))

  (func (export "escape") (param $src i32) (param $units i32) (param $dst i32) (result i32)
    (local $end i32)
    (local $rest i32)
    (local $wide v128)
    (local $narrow v128)
    (local $lead v128)
    (local $last v128)
    (local $mask i32)
    (local $clean i32)
    (local $run i32)
    (local $unit i32)
    (local $next i32)
    (local $letter i32)
    (local.set $end (i32.add (local.get $src) (i32.shl (local.get $units) (i32.const 1))))
    (block $done
      (loop $step
        (block $three
          (block $special
            (local.set $rest (i32.shr_u (i32.sub (local.get $end) (local.get $src)) (i32.const 1)))
            (br_if $done (i32.eqz (local.get $rest)))
            (local.set $wide (v128.load align=1 (local.get $src)))
            (local.set $narrow (i8x16.narrow_i16x8_u (local.get $wide) (v128.load offset=16 align=1 (local.get $src))))
            (v128.store align=1 (local.get $dst) (local.get $narrow))
            ;; bit i: unit i is not printable ASCII, or is '"' or '\'
            (local.set $mask
              (i8x16.bitmask
                (v128.or
                  (local.get $narrow)
                  (v128.or
                    (v128.or
                      (i8x16.lt_u (local.get $narrow) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32))
                      (i8x16.eq (local.get $narrow) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34)))
                    (i8x16.eq (local.get $narrow) (v128.const i8x16 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92))))))
            (if (i32.ge_u (local.get $rest) (i32.const 16))
              (then
                (if (i32.eqz (local.get $mask))
                  (then
                    (local.set $src (i32.add (local.get $src) (i32.const 32)))
                    (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
                    (br $step)))
                ;; (a constant run of 8, so that the next step's loads do not wait on this block's data)
                (if (i32.eq (call $threeByteRun (local.get $wide)) (i32.const 8))
                  (then
                    (local.set $run (i32.const 8))
                    (br $three)))
                (local.set $clean (i32.ctz (local.get $mask))))
              (else
                (local.set $clean (i32.ctz (i32.or (local.get $mask) (i32.shl (i32.const 1) (local.get $rest)))))
                (if (i32.eq (local.get $clean) (local.get $rest))
                  (then (return (i32.add (local.get $dst) (local.get $rest)))))))
            (local.set $src (i32.add (local.get $src) (i32.shl (local.get $clean) (i32.const 1))))
            (local.set $dst (i32.add (local.get $dst) (local.get $clean)))
            (local.set $unit (i32.load16_u (local.get $src)))
            (br_if $special (i32.ge_u (local.get $unit) (i32.const 0x80)))

            ;; an ASCII unit to escape: a backslash, then the unit itself ('"', '\'), a letter, or u00xx
            (local.set $src (i32.add (local.get $src) (i32.const 2)))
            (i32.store8 (local.get $dst) (i32.const 92))
            (if (i32.or (i32.eq (local.get $unit) (i32.const 34)) (i32.eq (local.get $unit) (i32.const 92)))
              (then
                (i32.store8 offset=1 (local.get $dst) (local.get $unit))
                (local.set $dst (i32.add (local.get $dst) (i32.const 2)))
                (br $step)))
            ;; U+0008..U+000D: the letters b t n - f r packed in an i64, byte (unit - 8); 0 for U+000B
            (local.set $letter
              (select
                (i32.wrap_i64
                  (i64.and
                    (i64.shr_u
                      (i64.const 0x7266006e7462)
                      (i64.extend_i32_u (i32.shl (i32.sub (local.get $unit) (i32.const 8)) (i32.const 3))))
                    (i64.const 0xff)))
                (i32.const 0)
                (i32.lt_u (i32.sub (local.get $unit) (i32.const 8)) (i32.const 6))))
            (if (local.get $letter)
              (then
                (i32.store8 offset=1 (local.get $dst) (local.get $letter))
                (local.set $dst (i32.add (local.get $dst) (i32.const 2)))
                (br $step)))
            ;; "u00" and the high digit ('0' or '1') in one store, then the low digit
            (i32.store offset=1 (local.get $dst)
              (i32.or
                (i32.const 0x00303075)
                (i32.shl (i32.add (i32.const 48) (i32.shr_u (local.get $unit) (i32.const 4))) (i32.const 24))))
            (i32.store8 offset=5 (local.get $dst) (call $hex (i32.and (local.get $unit) (i32.const 15))))
            (local.set $dst (i32.add (local.get $dst) (i32.const 6)))
            (br $step))

          ;; a unit from U+0080 at src: first, a run of 3-byte units (when 8 units remain)
          (if (i32.ge_u (i32.sub (local.get $end) (local.get $src)) (i32.const 16))
            (then
              (local.set $wide (v128.load align=1 (local.get $src)))
              (local.set $run (call $threeByteRun (local.get $wide)))
              (br_if $three (local.get $run))))
          ;; else this unit alone
          (local.set $src (i32.add (local.get $src) (i32.const 2)))
          (if (i32.lt_u (local.get $unit) (i32.const 0x800))
            (then
              ;; 110xxxxx 10xxxxxx
              (i32.store16 (local.get $dst)
                (i32.or
                  (i32.or (i32.const 0x80c0) (i32.shr_u (local.get $unit) (i32.const 6)))
                  (i32.shl (i32.and (local.get $unit) (i32.const 0x3f)) (i32.const 8))))
              (local.set $dst (i32.add (local.get $dst) (i32.const 2)))
              (br $step)))
          (if (i32.ne (i32.and (local.get $unit) (i32.const 0xf800)) (i32.const 0xd800))
            (then
              ;; 1110xxxx 10xxxxxx 10xxxxxx (and a byte of garbage)
              (i32.store (local.get $dst)
                (i32.or
                  (i32.or (i32.const 0x8080e0) (i32.shr_u (local.get $unit) (i32.const 12)))
                  (i32.or
                    (i32.shl (i32.and (i32.shr_u (local.get $unit) (i32.const 6)) (i32.const 0x3f)) (i32.const 8))
                    (i32.shl (i32.and (local.get $unit) (i32.const 0x3f)) (i32.const 16)))))
              (local.set $dst (i32.add (local.get $dst) (i32.const 3)))
              (br $step)))
          ;; a high surrogate followed by a low one: the code point, 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx
          (if (i32.and (i32.lt_u (local.get $unit) (i32.const 0xdc00)) (i32.lt_u (local.get $src) (local.get $end)))
            (then
              (local.set $next (i32.load16_u (local.get $src)))
              (if (i32.eq (i32.and (local.get $next) (i32.const 0xfc00)) (i32.const 0xdc00))
                (then
                  (local.set $unit
                    (i32.add
                      (i32.const 0x10000)
                      (i32.or
                        (i32.shl (i32.and (local.get $unit) (i32.const 0x3ff)) (i32.const 10))
                        (i32.and (local.get $next) (i32.const 0x3ff)))))
                  (i32.store (local.get $dst)
                    (i32.or
                      (i32.or
                        (i32.or (i32.const 0x808080f0) (i32.shr_u (local.get $unit) (i32.const 18)))
                        (i32.shl (i32.and (i32.shr_u (local.get $unit) (i32.const 12)) (i32.const 0x3f)) (i32.const 8)))
                      (i32.or
                        (i32.shl (i32.and (i32.shr_u (local.get $unit) (i32.const 6)) (i32.const 0x3f)) (i32.const 16))
                        (i32.shl (i32.and (local.get $unit) (i32.const 0x3f)) (i32.const 24)))))
                  (local.set $src (i32.add (local.get $src) (i32.const 2)))
                  (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
                  (br $step)))))
          ;; a lone surrogate: "\ud" and three hex digits
          (i32.store (local.get $dst) (i32.const 0x0064755c))
          (i32.store8 offset=3 (local.get $dst) (call $hex (i32.and (i32.shr_u (local.get $unit) (i32.const 8)) (i32.const 15))))
          (i32.store8 offset=4 (local.get $dst) (call $hex (i32.and (i32.shr_u (local.get $unit) (i32.const 4)) (i32.const 15))))
          (i32.store8 offset=5 (local.get $dst) (call $hex (i32.and (local.get $unit) (i32.const 15))))
          (local.set $dst (i32.add (local.get $dst) (i32.const 6)))
          (br $step))

        ;; $run (1 to 8) leading units of $wide take 3 bytes each: 1110xxxx 10xxxxxx 10xxxxxx.
        ;; $lead: the first bytes of the 8 units, then their second bytes; $last: their third bytes.
        ;; 32 bytes are stored, the first 3 * $run of them are the output. After a whole run of 8,
        ;; the next 8 units are tried straight away (text in these scripts is long runs of them).
        (loop $utf8x3
          (local.set $lead
            (i8x16.narrow_i16x8_u
              (v128.or (i16x8.shr_u (local.get $wide) (i32.const 12)) (v128.const i16x8 0xe0 0xe0 0xe0 0xe0 0xe0 0xe0 0xe0 0xe0))
              (v128.or
                (v128.and (i16x8.shr_u (local.get $wide) (i32.const 6)) (v128.const i16x8 0x3f 0x3f 0x3f 0x3f 0x3f 0x3f 0x3f 0x3f))
                (v128.const i16x8 0x80 0x80 0x80 0x80 0x80 0x80 0x80 0x80))))
          (local.set $last
            (v128.or
              (v128.and (local.get $wide) (v128.const i16x8 0x3f 0x3f 0x3f 0x3f 0x3f 0x3f 0x3f 0x3f))
              (v128.const i16x8 0x80 0x80 0x80 0x80 0x80 0x80 0x80 0x80)))
          (local.set $last (i8x16.narrow_i16x8_u (local.get $last) (local.get $last)))
          (v128.store align=1 (local.get $dst)
            (i8x16.shuffle 0 8 16 1 9 17 2 10 18 3 11 19 4 12 20 5 (local.get $lead) (local.get $last)))
          (v128.store offset=16 align=1 (local.get $dst)
            (i8x16.shuffle 13 21 6 14 22 7 15 23 0 0 0 0 0 0 0 0 (local.get $lead) (local.get $last)))
          (local.set $src (i32.add (local.get $src) (i32.shl (local.get $run) (i32.const 1))))
          (local.set $dst (i32.add (local.get $dst) (i32.mul (local.get $run) (i32.const 3))))
          (br_if $step (i32.ne (local.get $run) (i32.const 8)))
          (br_if $step (i32.lt_u (i32.sub (local.get $end) (local.get $src)) (i32.const 16)))
          (local.set $wide (v128.load align=1 (local.get $src)))
          (local.set $run (call $threeByteRun (local.get $wide)))
          (br_if $step (i32.eqz (local.get $run)))
          (br $utf8x3))))
    (local.get $dst)))
