package dev.fencedlock.spring.receiver;

import dev.fencedlock.testkit.db.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One run of the receiver service on an existing database, as a restarted process would be: its
 * own context, Tomcat and connection pool. Close it to stop it.
 */
final class ReceiverInstance implements AutoCloseable {
    private final ConfigurableApplicationContext context;

    private ReceiverInstance(ConfigurableApplicationContext context) {
        this.context = context;
    }

    /** Starts the service on {@code database}'s schema, with the receiver's properties and {@code more}. */
    static ReceiverInstance start(TestDatabase database, String... more) {
        List<String> arguments = new ArrayList<>();
        Properties properties = new Properties();
        try (InputStream in = ReceiverInstance.class.getResourceAsStream("/receiver-test.properties")) {
            properties.load(in);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        properties.forEach((key, value) -> arguments.add("--" + key + "=" + value));
        arguments.add("--spring.datasource.url=" + database.jdbcUrl());
        arguments.add("--spring.datasource.username=" + database.user());
        arguments.add("--spring.datasource.password=" + database.password());
        for (String property : more) {
            arguments.add("--" + property);
        }
        return new ReceiverInstance(
                new SpringApplicationBuilder(ReceiverApplication.class).run(arguments.toArray(String[]::new)));
    }

    Calls calls() {
        return new Calls(((WebServerApplicationContext) context).getWebServer().getPort());
    }

    @Override
    public void close() {
        context.close();
    }
}
