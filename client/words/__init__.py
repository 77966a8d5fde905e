"""What a person reads and types: the board, each event, the record, the commands; in words, below every front end."""
