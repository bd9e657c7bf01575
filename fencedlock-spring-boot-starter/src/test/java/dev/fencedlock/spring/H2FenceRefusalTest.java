package dev.fencedlock.spring;

import org.springframework.test.context.TestPropertySource;

@TestPropertySource(properties = "test.database=H2")
class H2FenceRefusalTest extends FenceRefusalContract {}
