//! PLACEHOLDER: replaced by the Siconos `.dat` reader and writer.
