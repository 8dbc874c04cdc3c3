# Datasets and lme4 reference fits for tests/core/test_stats_mixed.py.
#
# Run once from the repository root:  Rscript tests/analysis/data/lme4/make_reference.R
# It writes <dataset>.csv (simulated ratings shaped like the thesis's study) and
# reference.json (lmer REML fits with lme4's default control). The Python tests compare
# analysis.stats against these numbers; they never regenerate them.
suppressPackageStartupMessages({
  library(lme4)
  library(jsonlite)
})
out <- "tests/analysis/data/lme4"
groups <- c("hypothesis", "order", "swap", "phrase", "choice")
shift <- c(hypothesis = 0, order = -0.5, swap = -0.3, phrase = -0.6, choice = 0.4)

# Each participant rates the `shared` items and `unique` items of their own, or, when
# `pool` is given, `unique` items drawn at random from a pool of that size (more crossing).
# Answers are rounded latent scores on the 1-5 scale; a few are left blank.
make_study <- function(n_part, shared, unique, sd_part, sd_item, sd_noise, pool = NA,
                       blank = 0.01) {
  n_items <- if (is.na(pool)) shared + n_part * unique else shared + pool
  group <- sample(groups, n_items, replace = TRUE, prob = c(0.5, rep(0.125, 4)))
  item_effect <- rnorm(n_items, 0, sd_item)
  part_effect <- rnorm(n_part, 0, sd_part)
  rows <- lapply(seq_len(n_part), function(p) {
    own <- if (is.na(pool)) shared + (p - 1) * unique + seq_len(unique)
           else shared + sample(pool, unique)
    items <- c(seq_len(shared), own)
    latent <- 3.2 + shift[group[items]] + item_effect[items] + part_effect[p]
    answer <- function() {
      a <- pmin(5, pmax(1, round(latent + rnorm(length(items), 0, sd_noise))))
      a[runif(length(items)) < blank] <- NA
      a
    }
    data.frame(participant = p, item = items, group = group[items],
               holistic = answer(), order = answer())
  })
  d <- do.call(rbind, rows)
  d$kind <- ifelse(d$group == "hypothesis", "hypothesis", "permutation")
  d$perm_type <- ifelse(d$group == "hypothesis", NA, d$group)
  d$holistic01 <- (d$holistic - 1) / 4
  d$order01 <- (d$order - 1) / 4
  d$group <- factor(d$group, levels = groups)
  d
}

fit_summary <- function(name, data_file, formula, data) {
  started <- proc.time()[["elapsed"]]
  fit <- lmer(formula, data = data, REML = TRUE)
  seconds <- proc.time()[["elapsed"]] - started
  vc <- as.data.frame(VarCorr(fit))
  re <- ranef(fit)
  list(
    name = name,
    data = data_file,
    formula = deparse(formula),
    n_obs = nobs(fit),
    fixef = as.list(fixef(fit)),
    se = as.list(sqrt(diag(as.matrix(vcov(fit))))),
    theta = as.list(getME(fit, "theta")),
    variances = as.list(setNames(vc$vcov, ifelse(is.na(vc$var1), "residual", vc$grp))),
    sigma = sigma(fit),
    reml_criterion = unname(REMLcrit(fit)),
    loglik = as.numeric(logLik(fit)),
    ranef = lapply(re, function(r) as.list(setNames(r[[1]], rownames(r)))),
    singular = isSingular(fit),
    messages = as.list(c(fit@optinfo$conv$lme4$messages, fit@optinfo$message)),
    optimizer = fit@optinfo$optimizer,
    seconds = seconds
  )
}

datasets <- list()
set.seed(20170601)
# Thesis-shaped: 36 participants, 20 shared and 30 unique items each.
datasets$study <- make_study(36, 20, 30, sd_part = 0.5, sd_item = 0.6, sd_noise = 0.8)
# No participant effect at all: the participant variance is estimated on the boundary (0).
datasets$no_participant_effect <- make_study(24, 20, 30, sd_part = 0, sd_item = 0.6,
                                             sd_noise = 0.8)
# More participants than items, each rating a random subset: heavily crossed.
datasets$crossed_pool <- make_study(150, 5, 15, sd_part = 0.4, sd_item = 0.5, sd_noise = 0.9,
                                    pool = 60)

for (d in names(datasets)) {
  x <- datasets[[d]]
  x$group <- as.character(x$group)
  write.csv(x, file.path(out, paste0(d, ".csv")), row.names = FALSE, na = "")
}

models <- list(
  list("study_order_participant", "study", order01 ~ 1 + (1 | participant)),
  list("study_holistic_participant", "study", holistic01 ~ 1 + (1 | participant)),
  list("study_order_group_participant", "study", order01 ~ group + (1 | participant)),
  list("study_order_crossed", "study", order01 ~ group + (1 | participant) + (1 | item)),
  list("study_holistic_crossed", "study", holistic01 ~ group + (1 | participant) + (1 | item)),
  list("no_participant_effect_participant", "no_participant_effect",
       order01 ~ 1 + (1 | participant)),
  list("no_participant_effect_crossed", "no_participant_effect",
       order01 ~ group + (1 | participant) + (1 | item)),
  list("crossed_pool_crossed", "crossed_pool", holistic01 ~ group + (1 | participant) + (1 | item))
)
reference <- list(
  lme4_version = as.character(packageVersion("lme4")),
  r_version = R.version.string,
  fits = lapply(models, function(m) {
    fit_summary(m[[1]], paste0(m[[2]], ".csv"), m[[3]], datasets[[m[[2]]]])
  })
)
writeLines(toJSON(reference, auto_unbox = TRUE, digits = NA, pretty = TRUE, null = "null"),
           file.path(out, "reference.json"))
