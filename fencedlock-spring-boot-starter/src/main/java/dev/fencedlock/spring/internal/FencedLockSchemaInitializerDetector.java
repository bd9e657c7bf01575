package dev.fencedlock.spring.internal;

import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;

/**
 * Tells Spring Boot that {@link FencedLockSchemaInitializer} initialises the database, so beans that
 * use it (JPA, {@code JdbcTemplate}) wait for it. Ordered after the application's Flyway: a Flyway without its history table refuses a schema that already holds fencedlock's
 * tables, while fencedlock's own Flyway accepts the application's (it records a baseline).
 */
final class FencedLockSchemaInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {
    /** After Flyway's detectors (order 1), before plain SQL scripts ({@code LOWEST_PRECEDENCE - 100}). */
    static final int ORDER = 10;

    @Override
    protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
        return Set.of(FencedLockSchemaInitializer.class);
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
