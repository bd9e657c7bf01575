package dev.fencedlock.examples.spring;

import org.springframework.data.jpa.repository.JpaRepository;

interface Sales extends JpaRepository<Sale, Long> {}
