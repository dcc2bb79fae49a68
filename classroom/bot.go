package classroom

// botSkill is the skill of the bot that plays a pane with cl_bot 1
// (client/headless.BotDriver, as the headless clients' bots).
const botSkill = 3
