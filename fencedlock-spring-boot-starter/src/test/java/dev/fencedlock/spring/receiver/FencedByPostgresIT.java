package dev.fencedlock.spring.receiver;

import org.springframework.test.context.TestPropertySource;

@TestPropertySource(properties = "receiver.test-database=POSTGRESQL")
class FencedByPostgresIT extends AbstractFencedByIT {}
