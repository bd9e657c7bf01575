package dev.fencedlock.spring.test.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A user's application as the issue describes it: JPA with ddl-auto, H2, no fencedlock migrations. */
@SpringBootApplication
public class StockApplication {}
