/* The loader stub and the vDSOs (plain and tracing), built in abi/ and
 * embedded here. */
        .section .rodata
        .balign 64
        .globl blob_stub_start, blob_stub_end
blob_stub_start:
        .incbin STUB_PATH
blob_stub_end:
        .balign 64
        .globl blob_vdso_start, blob_vdso_end
blob_vdso_start:
        .incbin VDSO_PATH
blob_vdso_end:
        .balign 64
        .globl blob_vdso_trace_start, blob_vdso_trace_end
blob_vdso_trace_start:
        .incbin VDSO_TRACE_PATH
blob_vdso_trace_end:
        .section .note.GNU-stack,"",@progbits
