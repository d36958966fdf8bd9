// SPDX-License-Identifier: Apache-2.0
// Placeholder: being written.
