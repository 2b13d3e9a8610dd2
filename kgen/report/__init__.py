"""What the user reads: problems in every format (`formats`), the `kgen list` table
(`plan`) and `kgen explain`."""
