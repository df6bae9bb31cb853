"""The house ledger."""
