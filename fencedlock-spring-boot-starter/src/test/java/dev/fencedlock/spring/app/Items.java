package dev.fencedlock.spring.app;

import org.springframework.data.jpa.repository.JpaRepository;

public interface Items extends JpaRepository<Item, String> {}
