/**
 * Real {@code redis-server} processes for integration tests: {@link
 * dev.fencedlock.testkit.redis.RedisServerProcess} (one server, faults by signal: kill, pause,
 * resume, restart empty), {@link dev.fencedlock.testkit.redis.RedisServers} (N independent
 * servers), {@link dev.fencedlock.testkit.junit.RedisServersExtension} (JUnit 5: start before the
 * class, heal before each test, kill after) and {@link dev.fencedlock.testkit.redis.RedisTls}
 * (throw-away certificates). Servers never outlive the test JVM, and never use port 6379.
 */
package dev.fencedlock.testkit.redis;
