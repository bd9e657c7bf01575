package dev.fencedlock.integration.app;

import dev.fencedlock.LockClient;
import dev.fencedlock.integration.FencedLockRegistry;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** An application that declares its lock registry over the starter's client; nothing else changes. */
@SpringBootApplication
public class RegistryApp {
    @Bean
    FencedLockRegistry lockRegistry(LockClient lockClient) {
        return new FencedLockRegistry(lockClient);
    }
}
