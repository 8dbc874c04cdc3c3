"""Built-in word-order and translation-quality metrics, as plain functions without Django.

Modules: `alignment` (monolingual aligner, `i-j` files, alignment → permutation), `permutation`
(flat permutation metrics), `pets` (permutation trees and forests), `baselines` (the thesis's
baselines and sacrebleu metrics), `lepor`, `ted` and `dted` (tree edit distance), `derp`,
`registry` (every metric with its variant and version) and `compute` (parallel driver).
"""
