package dev.fencedlock.spring;

import org.springframework.test.context.TestPropertySource;

@TestPropertySource(properties = "test.database=POSTGRESQL")
class PostgreSqlFenceRefusalIT extends FenceRefusalContract {}
