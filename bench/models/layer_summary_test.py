#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""layer_summary.py's parsing and grouping, on a log as kiln_model_bench writes it (stdlib unittest; ctest runs it as
bench.layer_summary)."""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layer_summary  # noqa: E402

LOG = """kiln_model_bench: bert: built in 3.6 s
kiln_model_bench: layers of bert fp16 batch 32 (mean ms of 10 runs):
  0.0200  /model/embeddings/word_embeddings/Gather_7
  0.0300  /model/encoder/layer.0/attention/self/query/MatMul_2
  0.0210  /model/encoder/layer.0/attention/self/MatMul_1
  0.0280  /model/encoder/layer.1/attention/self/query/MatMul_2
  0.0190  /model/encoder/layer.1/attention/self/MatMul_1
  0.0000  /model/Range_2
  0.1180  (6 layers)
kiln_model_bench: layers of resnet50 fp16 batch 1 (mean ms of 10 runs):
  0.0100  /layer1/layer1.0/conv1/Conv
  0.0120  /layer1/layer1.1/conv1/Conv
  0.0300  /layer2/layer2.0/conv1/Conv
  0.0520  (3 layers)
"""


class LayerSummaryTest(unittest.TestCase):
    def test_block_numbers_become_n_and_nothing_else_does(self):
        self.assertEqual(layer_summary.group_name("/model/encoder/layer.11/output/dense/MatMul_2"),
                         "/model/encoder/layer.N/output/dense/MatMul_2")
        self.assertEqual(layer_summary.group_name("/layer3/layer3.5/conv2/Conv"), "/layer3/layer3.N/conv2/Conv")
        self.assertEqual(layer_summary.group_name("/blocks/block_12/mlp/Gemm"), "/blocks/block_N/mlp/Gemm")
        # A number that ends the name (a layer's own index) is not a block number.
        self.assertEqual(layer_summary.group_name("/model/Gather_4_8"), "/model/Gather_4_8")

    def test_profiles_layers_and_totals_are_parsed(self):
        profiles = layer_summary.parse(LOG)
        self.assertEqual([p[0] for p in profiles], [("bert", "fp16", 32, 10), ("resnet50", "fp16", 1, 10)])
        self.assertEqual(len(profiles[0][1]), 6)
        self.assertAlmostEqual(profiles[0][2], 0.118)
        self.assertEqual(profiles[1][1][2], (0.03, "/layer2/layer2.0/conv1/Conv"))

    def test_groups_sum_their_layers_largest_total_first(self):
        rows = layer_summary.groups(layer_summary.parse(LOG)[0][1])
        name, count, mean, total = rows[0]
        self.assertEqual((name, count), ("/model/encoder/layer.N/attention/self/query/MatMul_2", 2))
        self.assertAlmostEqual(mean, 0.029)
        self.assertAlmostEqual(total, 0.058)
        self.assertEqual([row[0] for row in rows[1:3]],
                         ["/model/encoder/layer.N/attention/self/MatMul_1", "/model/embeddings/word_embeddings/Gather_7"])
        self.assertEqual(rows[-1][0], "/model/Range_2")

    def test_the_command_prints_a_table_per_profile_and_fails_on_a_log_without_one(self):
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "layer_summary.py")
        with tempfile.TemporaryDirectory() as folder:
            log = os.path.join(folder, "kiln_layers.log")
            with open(log, "w", encoding="utf-8") as out:
                out.write(LOG)
            done = subprocess.run([sys.executable, script, log, "--top", "2"], capture_output=True, text=True,
                                  check=True)
            self.assertIn("### bert fp16 batch 32 (mean of 10 runs; 6 layers, 0.1180 ms in all)", done.stdout)
            self.assertIn("| /model/encoder/layer.N/attention/self/query/MatMul_2 | 2 | 29.0 | 58.0 | 49.2% |",
                          done.stdout)
            self.assertNotIn("Gather_7", done.stdout)  # Third in its profile: past --top 2.
            self.assertIn("| /layer1/layer1.N/conv1/Conv | 2 | 11.0 | 22.0 | 42.3% |", done.stdout)
            with open(log, "w", encoding="utf-8") as out:
                out.write("kiln_model_bench: bert: built in 3.6 s\n")
            empty = subprocess.run([sys.executable, script, log], capture_output=True, text=True)
            self.assertEqual(empty.returncode, 1)
            self.assertIn("no profile", empty.stderr)


if __name__ == "__main__":
    unittest.main()
