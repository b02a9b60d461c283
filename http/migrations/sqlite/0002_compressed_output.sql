-- Results are stored LZ4-compressed (a 1000-event result is about 1.2 MB of JSON and
-- compresses about tenfold); `full_output` stays for rows written before this.
ALTER TABLE sessions ADD COLUMN full_output_lz4 BLOB;
