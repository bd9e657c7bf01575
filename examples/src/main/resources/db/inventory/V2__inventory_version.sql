-- fencing-jpa requires a @Version beside the fence, so that two writes under one lease and stale
-- copies are refused by the version check.
ALTER TABLE inventory ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
