package dev.fencedlock.spring.receiver;

import org.springframework.test.context.TestPropertySource;

@TestPropertySource(properties = "receiver.test-database=H2")
class FencedByH2IT extends AbstractFencedByIT {}
