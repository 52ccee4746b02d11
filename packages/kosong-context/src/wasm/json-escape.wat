;; JSON string escaping of UTF-8 bytes, 16 bytes at a time (WebAssembly SIMD).
;;
;; Compiled by scripts/build-wasm.ts (wabt) into src/json-escape-wasm.ts; run
;; `pnpm run build:wasm` after editing this file (a test checks that the
;; embedded bytes are this file compiled).
;;
;; escape(src, len, dst) -> end
;;
;;   Writes the UTF-8 bytes [src, src+len) at dst as the inside of a JSON
;;   string (no quotes), escaped exactly as JSON.stringify escapes them:
;;     '"' -> \"   '\' -> \\   0x08 0x09 0x0a 0x0c 0x0d -> \b \t \n \f \r
;;     any other byte below 0x20 -> \u00xx (lowercase hex)
;;   Every other byte (printable ASCII, DEL, the bytes of multi-byte UTF-8
;;   sequences) is copied as is. Returns the address just after the output,
;;   which is at most 6 * len bytes long.
;;
;;   Contract (the caller lays out the memory, which is imported):
;;   - the output [dst, end + 16) must not overlap the input [src, src+len);
;;   - the 16 bytes after the input are read (and ignored) and the 16 bytes
;;     after the output may be overwritten with garbage: both must lie inside
;;     the memory, and the output's 16 bytes of slack hold nothing of value.
;;
;; Each step loads 16 input bytes and stores them whole at dst, then looks
;; for bytes to escape (a bitmask of the block). A clean block advances both
;; pointers by 16 (a constant step, so the loads of consecutive clean blocks
;; do not wait on each other). Otherwise the clean prefix is already in
;; place: both pointers advance past it (ctz of the mask) and scalar code
;; escapes the byte there. The last, partial block is handled the same way,
;; with the bytes past the end of the input masked off (a sentinel bit at
;; the input's end stops the prefix there).
(module
  (import "env" "memory" (memory 1))

  (func (export "escape") (param $src i32) (param $len i32) (param $dst i32) (result i32)
    (local $end i32)
    (local $rest i32)
    (local $block v128)
    (local $mask i32)
    (local $clean i32)
    (local $byte i32)
    (local $letter i32)
    (local $low i32)
    (local.set $end (i32.add (local.get $src) (local.get $len)))
    (block $done
      (loop $step
        (local.set $rest (i32.sub (local.get $end) (local.get $src)))
        (br_if $done (i32.eqz (local.get $rest)))
        (local.set $block (v128.load align=1 (local.get $src)))
        (v128.store align=1 (local.get $dst) (local.get $block))
        (local.set $mask
          (i8x16.bitmask
            (v128.or
              (v128.or
                (i8x16.lt_u (local.get $block) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32))
                (i8x16.eq (local.get $block) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34)))
              (i8x16.eq (local.get $block) (v128.const i8x16 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92)))))
        (if (i32.ge_u (local.get $rest) (i32.const 16))
          (then
            ;; a whole block: clean, or escape at its first flagged byte
            (if (i32.eqz (local.get $mask))
              (then
                (local.set $src (i32.add (local.get $src) (i32.const 16)))
                (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
                (br $step)))
            (local.set $clean (i32.ctz (local.get $mask))))
          (else
            ;; the last, partial block: flags past the end do not count
            (local.set $clean (i32.ctz (i32.or (local.get $mask) (i32.shl (i32.const 1) (local.get $rest)))))
            (if (i32.eq (local.get $clean) (local.get $rest))
              (then (return (i32.add (local.get $dst) (local.get $rest)))))))
        (local.set $src (i32.add (local.get $src) (local.get $clean)))
        (local.set $dst (i32.add (local.get $dst) (local.get $clean)))

        ;; escape the byte at src
        (local.set $byte (i32.load8_u (local.get $src)))
        (local.set $src (i32.add (local.get $src) (i32.const 1)))
        (i32.store8 (local.get $dst) (i32.const 92))
        ;; '"' and '\': a backslash and the byte itself
        (if (i32.or (i32.eq (local.get $byte) (i32.const 34)) (i32.eq (local.get $byte) (i32.const 92)))
          (then
            (i32.store8 offset=1 (local.get $dst) (local.get $byte))
            (local.set $dst (i32.add (local.get $dst) (i32.const 2)))
            (br $step)))
        ;; 0x08..0x0d: the letters b t n - f r packed in an i64, byte (byte - 8); 0 for 0x0b
        (local.set $letter
          (select
            (i32.wrap_i64
              (i64.and
                (i64.shr_u
                  (i64.const 0x7266006e7462)
                  (i64.extend_i32_u (i32.shl (i32.sub (local.get $byte) (i32.const 8)) (i32.const 3))))
                (i64.const 0xff)))
            (i32.const 0)
            (i32.lt_u (i32.sub (local.get $byte) (i32.const 8)) (i32.const 6))))
        (if (local.get $letter)
          (then
            (i32.store8 offset=1 (local.get $dst) (local.get $letter))
            (local.set $dst (i32.add (local.get $dst) (i32.const 2)))
            (br $step)))
        ;; any other control byte: \u00xx; "u00" and the high digit ('0' or '1') in one store
        (i32.store offset=1 (local.get $dst)
          (i32.or
            (i32.const 0x00303075)
            (i32.shl (i32.add (i32.const 48) (i32.shr_u (local.get $byte) (i32.const 4))) (i32.const 24))))
        (local.set $low (i32.and (local.get $byte) (i32.const 15)))
        (i32.store8 offset=5 (local.get $dst)
          (i32.add
            (local.get $low)
            (select (i32.const 87) (i32.const 48) (i32.ge_u (local.get $low) (i32.const 10)))))
        (local.set $dst (i32.add (local.get $dst) (i32.const 6)))
        (br $step)))
    (local.get $dst)))
