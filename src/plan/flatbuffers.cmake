# SPDX-License-Identifier: Apache-2.0
# Placeholder: the FlatBuffers schema compilation lands here.
