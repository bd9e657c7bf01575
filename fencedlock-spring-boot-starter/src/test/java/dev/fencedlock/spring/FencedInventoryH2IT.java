package dev.fencedlock.spring;

import org.springframework.test.context.TestPropertySource;

@TestPropertySource(properties = "test.database=H2")
class FencedInventoryH2IT extends AbstractFencedInventoryIT {}
