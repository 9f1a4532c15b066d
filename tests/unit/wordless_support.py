"""A TypeScript class long enough that the `}` closing it is a chunk of its own, with no word
in it: the sample both the vector test and the store-backend test ask about."""

from __future__ import annotations

METHODS = "".join(
    f"  step{i}(batch: Batch): number {{\n"
    + "".join(f"    const v{j} = batch.take({i}, {j});\n" for j in range(8))
    + "    return v0;\n  }\n\n"
    for i in range(8))
RETRIER = ("/** Retries failed uploads with exponential backoff and random jitter. */\n"
           "export class UploadRetrier {\n" + METHODS + "}\n")
BRACE_LINE = RETRIER.count("\n") - 1
