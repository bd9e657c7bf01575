package dev.fencedlock.spring.app;

import dev.fencedlock.testkit.db.TestDatabase;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * The Spring Boot application of the tests: the inventory service on a private schema of the
 * database named by {@code test.database} ({@code H2} or {@code POSTGRESQL}) with a pool of {@code
 * test.database.pool-size} connections (12), migrated by Spring Boot's Flyway with the fence row table.
 */
@SpringBootApplication
public class InventoryApplication {

    @Bean(destroyMethod = "close")
    TestDatabase testDatabase(
            @Value("${test.database:H2}") TestDatabase.Kind kind,
            @Value("${test.database.pool-size:12}") int poolSize) {
        return TestDatabase.create(kind, "spring", poolSize);
    }

    @Bean
    DataSource dataSource(TestDatabase database) {
        return database.dataSource();
    }
}
