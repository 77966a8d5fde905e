"""The shells around the cores: the key and settings files, the journal, the MQTT link, threads, the runner."""
