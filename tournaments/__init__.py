"""tournaments package."""
