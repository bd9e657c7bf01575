package dev.fencedlock.shedlock.app;

import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** An application with a ShedLock job and no fencedlock-specific code but the dependency. */
@SpringBootApplication
@EnableSchedulerLock(defaultLockAtMostFor = "10s")
public class ShedLockApp {}
