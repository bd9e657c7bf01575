-- fencing-jpa requires a @Version beside the fence: two writes under one lease and stale copies
-- are refused by the version check.
ALTER TABLE fault_counter ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
